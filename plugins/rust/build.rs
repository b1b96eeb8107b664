// Refuses to build when the ABI this crate mirrors (src/abi.rs) is not the one in
// include/cht.h: CHT_ABI_VERSION must be the same number in both.
use std::fs;

fn version_in(text: &str, pat: &str) -> Option<u32> {
    let line = text.lines().find(|l| l.trim_start().starts_with(pat))?;
    let rest = line.trim_start()[pat.len()..].trim_start_matches([' ', ':', '=']).trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn main() {
    let header = "../../include/cht.h";
    println!("cargo:rerun-if-changed={}", header);
    println!("cargo:rerun-if-changed=src/abi.rs");
    let h = fs::read_to_string(header).unwrap_or_else(|e| panic!("{}: {}", header, e));
    let a = fs::read_to_string("src/abi.rs").expect("src/abi.rs");
    let hv = version_in(&h, "#define CHT_ABI_VERSION").expect("no #define CHT_ABI_VERSION in include/cht.h");
    let av = version_in(&a, "pub const CHT_ABI_VERSION: c_uint").expect("no CHT_ABI_VERSION in src/abi.rs");
    if hv != av {
        panic!("CHT_ABI_VERSION is {} in include/cht.h but {} in plugins/rust/src/abi.rs: update the \
                #[repr(C)] mirror (src/abi.rs) to the new structs, then its constant", hv, av);
    }
}
