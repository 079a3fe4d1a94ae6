//! Font files from Debian's fonts-* packages, found where the packages install them.
