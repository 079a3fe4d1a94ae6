//! intel_tex_2's prebuilt ISPC kernels call into the C++ runtime: with the `compressed`
//! feature, link libstdc++.
fn main() {
    if std::env::var_os("CARGO_FEATURE_COMPRESSED").is_some() {
        println!("cargo:rustc-link-lib=stdc++");
    }
}
