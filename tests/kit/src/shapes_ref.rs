//! CPU references of shapes: the same paths filled and stroked by tiny-skia.
