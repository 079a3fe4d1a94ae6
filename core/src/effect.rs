//! Effects: looks a quad picks by a small id and 4 parameters, declared when the batcher and
//! the renderer are made and compiled into every tier program then, so nothing a frame does
//! compiles a program (DESIGN 24).

/// One effect: the body of a WGSL function with a fixed signature that turns the colour a
/// quad would draw into the colour it draws. Written once: layerbatch-gl runs it translated to
/// GLSL by naga. Declared once, in
/// [`crate::Config::with_effects`]; every tier program of both backends includes every declared
/// effect, selected per quad by [`EffectId`].
///
/// The bodies see:
///
/// | name | type | what |
/// |---|---|---|
/// | `color` | `vec4<f32>` | the sampled texel times the quad's tint, premultiplied |
/// | `texel` | `vec2<f32>` | the sampling position in the texture's own texels (0 at its top-left corner) |
/// | `params` | `vec4<f32>` | the quad's 4 parameters, each `0.0..=1.0` |
/// | `time_s` | `f32` | the frame's time ([`crate::Batcher::set_time_s`]) |
///
/// and return the colour to draw, premultiplied. A body is the function's statements only; it
/// may call no other function of its own (declare none), and samples no texture itself. It may
/// call:
///
/// - `lb_texel(texel)` (`vec4<f32>`): its quad's texture at another texel position,
///   premultiplied, untinted and unlit (level 0; 0 outside the texture's rectangle);
/// - `lb_alpha(texel)` (`f32`): that texel's alpha, as [`Effect::OUTLINE`] reads;
/// - `lb_ramp(index, row)` (`vec4<f32>`), only in an effect declared with
///   [`Effect::with_ramp`]: the colour at `index` (`0.0..=1.0`, over the ramp's
///   [`RAMP_WIDTH_PX`] texels) of ramp row `row` (`0.0..=1.0`, over its [`RAMP_ROWS`] rows), as
///   the host wrote it ([`crate::TextureStore::write_ramp_row`]: straight RGBA, not filtered), as
///   [`Effect::PALETTE`] reads. The ramp is one more texture every program samples, counted
///   against the device's texture units ([`crate::Budget::ramp`]).
///
/// ```
/// use layerbatch_core::Effect;
/// // A red flash: mix towards red by params.x, keeping coverage.
/// const RED_FLASH: Effect = Effect::new(
///     "red flash",
///     "return vec4<f32>(mix(color.rgb, vec3<f32>(color.a, 0.0, 0.0), params.x), color.a);",
/// );
/// assert!(!RED_FLASH.ramp);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Effect {
    /// Named in errors (a body that fails to compile) and logs.
    pub name: &'static str,
    /// The WGSL body.
    pub wgsl: &'static str,
    /// The body calls `lb_ramp` ([`Effect::with_ramp`]). `false` for [`Effect::new`].
    pub ramp: bool,
}

impl Effect {
    /// An effect of `name` with this WGSL body, sampling no ramp.
    pub const fn new(name: &'static str, wgsl: &'static str) -> Self {
        Self { name, wgsl, ramp: false }
    }

    /// This effect, calling `lb_ramp`: a batcher declaring it has the ramp texture, and
    /// every program samples one more texture ([`crate::Budget::ramp`]).
    pub const fn with_ramp(mut self) -> Self {
        self.ramp = true;
        self
    }

    /// Mixes towards `params.rgb` by `params.a` (a hit flash: white at full strength is
    /// `[1, 1, 1, 1]`), keeping the quad's coverage.
    pub const FLASH: Effect = Effect {
        name: "flash",
        wgsl: "return vec4<f32>(mix(color.rgb, params.rgb * color.a, params.a), color.a);",
        ramp: false,
    };

    /// Greyscale by Rec. 709 luma, mixed in by `params.x` (1: fully grey).
    pub const GREYSCALE: Effect = Effect {
        name: "greyscale",
        wgsl: "let l = dot(color.rgb, vec3<f32>(0.2126, 0.7152, 0.0722));\n\
               return vec4<f32>(mix(color.rgb, vec3<f32>(l), params.x), color.a);",
        ramp: false,
    };

    /// Dissolve: texels whose noise (an integer hash of the texel, the same on every device
    /// and frame to frame) is below `params.x` vanish; those less than `params.y / 4` above it
    /// glow in `(params.z, params.w, params.w)`, an edge colour. `params.x` 0 shows the whole
    /// sprite, 1 none of it.
    pub const DISSOLVE: Effect = Effect {
        name: "dissolve",
        wgsl: "let c = vec2<u32>(max(texel, vec2<f32>(0.0)));\n\
               var h = c.x * 1664525u + c.y * 1013904223u;\n\
               h ^= h >> 16u; h *= 0x7feb352du; h ^= h >> 15u; h *= 0x846ca68bu; h ^= h >> 16u;\n\
               let n = f32(h >> 8u) / 16777216.0;\n\
               if (n < params.x) { return vec4<f32>(0.0); }\n\
               if (n < params.x + params.y * 0.25) { return vec4<f32>(params.z, params.w, params.w, 1.0) * color.a; }\n\
               return color;",
        ramp: false,
    };

    /// Outline: a texel under half coverage next to one at half or more, `w` texels away in
    /// one of 8 directions (`w` = `params.a * 8` rounded, at least 1), shows `params.rgb`
    /// opaque under what coverage it has. The sprite needs transparent texels around it for
    /// the outline to show (its quad is all that is drawn).
    pub const OUTLINE: Effect = Effect {
        name: "outline",
        wgsl: "if (color.a >= 0.5) { return color; }\n\
               let w = max(1.0, floor(params.a * 8.0 + 0.5));\n\
               var m = 0.0;\n\
               for (var i = 0; i < 8; i++) {\n\
                   let d = vec2<f32>(select(0.0, 1.0, i == 0 || i == 1 || i == 7) - select(0.0, 1.0, i == 3 || i == 4 || i == 5),\n\
                                     select(0.0, 1.0, i == 1 || i == 2 || i == 3) - select(0.0, 1.0, i == 5 || i == 6 || i == 7));\n\
                   m = max(m, lb_alpha(texel + d * w));\n\
               }\n\
               return color + vec4<f32>(params.rgb, 1.0) * step(0.5, m) * (1.0 - color.a);",
        ramp: false,
    };

    /// Palette swap by a ramp: the red channel of the quad's own texel (straight, as stored:
    /// neither tinted nor lit) picks a colour of ramp row `params.x` (`lb_ramp`; index `k /
    /// 255` is entry `k`), drawn with the quad's coverage (its alpha after the tint) and the
    /// ramp colour's alpha, and mixed over the quad's colour by `params.y` (1: fully swapped;
    /// the swapped colour ignores the tint's colour and the lights). A texel of alpha 0 is
    /// left as it is. Sprites for it are authored with palette indices in red; the host
    /// writes one palette per row ([`crate::TextureStore::write_ramp_row`]).
    pub const PALETTE: Effect = Effect {
        name: "palette",
        wgsl: "let t = lb_texel(texel);\n\
               if (t.a <= 0.0) { return color; }\n\
               let r = lb_ramp(t.r / t.a, params.x);\n\
               return mix(color, vec4<f32>(r.rgb * r.a, r.a) * color.a, params.y);",
        ramp: true,
    };

    /// The built-in effects, in this order: [`Effect::FLASH`], [`Effect::GREYSCALE`],
    /// [`Effect::DISSOLVE`], [`Effect::OUTLINE`], [`Effect::PALETTE`].
    pub const BUILT_IN: [Effect; 5] =
        [Effect::FLASH, Effect::GREYSCALE, Effect::DISSOLVE, Effect::OUTLINE, Effect::PALETTE];
}

/// The most effects a batcher declares ([`crate::Config::with_effects`]).
pub const MAX_EFFECTS: usize = 32;

/// The ramp's width: entries a row ([`Effect::with_ramp`]).
pub const RAMP_WIDTH_PX: u32 = 256;
/// The ramp's rows: palettes ([`Effect::with_ramp`]; a row is picked by an 8-bit parameter).
pub const RAMP_ROWS: u32 = 256;

/// Which effect a quad draws with: [`EffectId::NONE`], or a declared effect's id, made by the
/// budget that declares it ([`crate::Budget::effect_id`], [`crate::Budget::effect_at`]): an id
/// is checked when it is made, so setting one cannot fail.
///
/// ```
/// use layerbatch_core::{Budget, Config, Effect, EffectId, Limits};
/// const EFFECTS: [Effect; 2] = [Effect::FLASH, Effect::OUTLINE];
/// let budget = Budget::new(&Limits::guaranteed_minimum(), &Config::default().with_effects(&EFFECTS))?;
/// let outline = budget.effect_id(&Effect::OUTLINE).expect("declared");
/// assert_eq!((outline.index(), budget.effect_at(2)), (2, Some(outline)));
/// assert_eq!(budget.effect_id(&Effect::DISSOLVE), None); // not declared
/// assert_eq!(EffectId::NONE.index(), 0);
/// # Ok::<(), layerbatch_core::ConfigError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EffectId(u8);

impl EffectId {
    /// No effect: the quad draws its tinted texel.
    pub const NONE: EffectId = EffectId(0);

    /// The `k`-th declared effect (from 1); the budget checks `k` ([`crate::Budget::effect_at`]).
    pub(crate) const fn declared(k: u8) -> Self {
        EffectId(k)
    }

    /// 0 for none, `k` for the `k`-th declared effect: what [`crate::plan::Instance::effect`]
    /// carries.
    pub const fn index(self) -> u8 {
        self.0
    }
}

/// Why a ramp row could not be written ([`crate::TextureStore::write_ramp_row`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RampError {
    /// No declared effect samples the ramp, so there is none.
    #[error("this batcher has no ramp: none of its {effects} declared effects samples it (Effect::with_ramp)")]
    NoRamp {
        /// Effects the config declared.
        effects: usize,
    },
    /// No colours, or more than a row holds.
    #[error("{colors} colours for ramp row {row}: a row takes 1..={max}")]
    Colors {
        /// The row.
        row: u8,
        /// Colours given.
        colors: usize,
        /// [`RAMP_WIDTH_PX`].
        max: u32,
    },
}

/// The parameters as an instance carries them: each clamped to `0.0..=1.0` (NaN to 0) and
/// rounded to the nearest of 255 steps.
pub(crate) fn pack_params(params: [f32; 4]) -> [u8; 4] {
    // `as u8` saturates, and turns NaN into 0.
    params.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}
