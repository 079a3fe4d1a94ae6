//! `{"tier1": {"vs": ..., "fs": ...}, "tier4": {...}}`: `layerbatch_gl::program_sources(&ProgramKey::plain(tier),
//! gles = true)`, what layerbatch-gl compiles on WebGL2.

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn main() {
    let entries: Vec<String> = [1u32, 4]
        .iter()
        .map(|&tier| {
            let (vs, fs) = layerbatch_gl::program_sources(&layerbatch_core::ProgramKey::plain(tier), true).expect("translates");
            format!("\"tier{tier}\":{{\"vs\":{},\"fs\":{}}}", json_string(&vs), json_string(&fs))
        })
        .collect();
    println!("{{{}}}", entries.join(","));
}
