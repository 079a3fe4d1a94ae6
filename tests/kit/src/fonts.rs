//! Font files from Debian's fonts-* packages, found where the packages install them
//! (`scripts/install-fonts.sh` installs them), and font systems of exactly those files, so a
//! test lays out the same glyphs on every machine whatever its own fonts are.
//!
//! ```no_run
//! use layerbatch_testkit::fonts::{self, Font};
//! let Some(mut fonts) = fonts::require(fonts::system(&[Font::Latin, Font::Cjk]), "my_test") else { return };
//! # let _ = &mut fonts;
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use cosmic_text::{fontdb, FontSystem};

/// A font the tests draw with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Font {
    /// DejaVu Sans (`fonts-dejavu-core`): Latin, Greek, Cyrillic, and outline emoticons.
    Latin,
    /// Droid Sans Fallback (`fonts-droid-fallback`): Chinese, Japanese and Korean outlines.
    Cjk,
    /// Noto Color Emoji (`fonts-noto-color-emoji`): colour bitmaps (CBDT), which swash gives
    /// as colour images.
    Emoji,
}

impl Font {
    /// Every font, in the order [`system`] loads them (Latin first: cosmic-text's default
    /// sans-serif face).
    pub const ALL: [Font; 3] = [Font::Latin, Font::Cjk, Font::Emoji];

    /// Where the Debian package installs the file.
    pub const fn path(self) -> &'static str {
        match self {
            Font::Latin => "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            Font::Cjk => "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
            Font::Emoji => "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
        }
    }

    /// The Debian package that installs it.
    pub const fn package(self) -> &'static str {
        match self {
            Font::Latin => "fonts-dejavu-core",
            Font::Cjk => "fonts-droid-fallback",
            Font::Emoji => "fonts-noto-color-emoji",
        }
    }

    /// The family name to ask cosmic-text for (`Attrs::family(Family::Name(..))`), e.g. to
    /// draw an emoji that DejaVu Sans also has in colour.
    pub const fn family(self) -> &'static str {
        match self {
            Font::Latin => "DejaVu Sans",
            Font::Cjk => "Droid Sans Fallback",
            Font::Emoji => "Noto Color Emoji",
        }
    }
}

/// A font file that is not there (or not a font).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingFont {
    /// The font.
    pub font: Font,
    /// Where it was looked for.
    pub path: PathBuf,
    /// What went wrong.
    pub why: String,
}

impl fmt::Display for MissingFont {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} font {} ({}): {}; run scripts/install-fonts.sh (as root) to install Debian's {}",
            self.font,
            self.path.display(),
            self.font.package(),
            self.why,
            self.font.package()
        )
    }
}

impl std::error::Error for MissingFont {}

/// The path of `font`'s file.
///
/// # Errors
/// [`MissingFont`] when the file is not there.
pub fn path(font: Font) -> Result<&'static Path, MissingFont> {
    let path = Path::new(font.path());
    if path.is_file() {
        Ok(path)
    } else {
        Err(MissingFont { font, path: path.into(), why: "no such file".into() })
    }
}

/// A font database of exactly `fonts`' files, in order.
///
/// # Errors
/// [`MissingFont`] for the first font whose file is missing or unreadable.
pub fn database(fonts: &[Font]) -> Result<fontdb::Database, MissingFont> {
    let mut db = fontdb::Database::new();
    for &font in fonts {
        let path = path(font)?;
        db.load_font_file(path).map_err(|e| MissingFont { font, path: path.into(), why: e.to_string() })?;
    }
    Ok(db)
}

/// A cosmic-text font system of exactly `fonts` (no system fonts, locale `en-US`):
/// deterministic layout and fallback.
///
/// # Errors
/// [`MissingFont`] for the first font whose file is missing.
pub fn system(fonts: &[Font]) -> Result<FontSystem, MissingFont> {
    Ok(FontSystem::new_with_locale_and_db("en-US".into(), database(fonts)?))
}

/// The font system, or, when a font is missing: a panic under CI, else a `skipped:` line
/// and `None` (the kit's [`crate::ci`] policy).
///
/// # Panics
/// Under CI, when a font is missing.
pub fn require(fonts: Result<FontSystem, MissingFont>, test: &str) -> Option<FontSystem> {
    match fonts {
        Ok(fonts) => Some(fonts),
        Err(e) => {
            crate::ci::skip(test, &e.to_string());
            None
        }
    }
}
