//! How the `claudio` program is linked on Linux with glibc, for a fast
//! start: `claudio statusline` is a new process after every message of a
//! Claude Code session, and most of its time is the process's start.
//!
//! - The code it runs comes first, side by side (src/hot_code.ld, written by
//!   bench/hot_code.py): a dozen page faults for it rather than some sixty.
//! - The unwinder is linked in (`libgcc_eh.a`) rather than loaded
//!   (`libgcc_s.so.1`): one shared library fewer to find, map and relocate,
//!   and its constructor's CPU queries (slow under a hypervisor) gone.
//! - With glibc 2.36 or later, the relative relocations are packed
//!   (`DT_RELR`): the loader reads a few KiB of them, not 400.
//!
//! Each is left out when it cannot apply (another target, a linker that
//! takes no such script, no `libgcc_eh.a`, an older glibc): the program is
//! the same, only its start slower. Link arguments set here reach
//! `cargo install` as well, where a `.cargo/config.toml` would not.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/hot_code.ld");
    println!("cargo:rerun-if-env-changed=CLAUDIO_PLAIN_LINK");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let chosen = linking(&var);
    // for tests/it/linking.rs, which checks each in the built program
    println!("cargo:rustc-env=CLAUDIO_LINKED={}", chosen.join(" "));
}

/// Link arguments for the program; what was chosen.
fn linking(var: &dyn Fn(&str) -> String) -> Vec<&'static str> {
    let mut chosen = Vec::new();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return chosen;
    }
    // an escape hatch, and the way to time the plain link beside this one
    if !var("CLAUDIO_PLAIN_LINK").is_empty() {
        chosen.push("plain");
        return chosen;
    }
    // the driver rustc links with: `cc` unless the target names another
    let cc = match var("RUSTC_LINKER") {
        l if l.is_empty() => "cc".to_owned(),
        l => l,
    };
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let native = var("HOST") == var("TARGET");

    // the linker script, for GNU ld and lld (the default ones); mold, gold
    // and the like take no `INSERT` script
    let other_linker = flags.split('\x1f').any(|f| {
        (f.contains("fuse-ld=") || f.contains("ld-path="))
            && !(f.ends_with("=lld") || f.ends_with("=bfd") || f.ends_with("ld.lld"))
    });
    let script = Path::new(&var("CARGO_MANIFEST_DIR")).join("src/hot_code.ld");
    if !other_linker && script.is_file() {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
        chosen.push("hot");
    }

    // the unwinder, static: found before `-lgcc_s`, it leaves nothing for
    // the shared one to give, and `--as-needed` drops it (a native build
    // only: a cross build's `cc` may be the host's, its library the host's)
    if let Some(dir) = native.then(|| file_of(&cc, "libgcc_eh.a")).flatten() {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-lib=static=gcc_eh");
        chosen.push("eh");
    }

    // packed relative relocations need glibc 2.36 where the program runs:
    // the build's own, for a native build (cargo install)
    if native && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
        chosen.push("relr");
    }
    chosen
}

/// The folder of a library the C driver links with, if it has it.
fn file_of(cc: &str, name: &str) -> Option<String> {
    let out = Command::new(cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = Path::new(path.trim());
    // a library it does not have comes back as the bare name
    if !out.status.success() || !path.is_absolute() || !path.is_file() {
        return None;
    }
    Some(path.parent()?.to_str()?.to_owned())
}

/// The glibc of this machine (`getconf GNU_LIBC_VERSION`: "glibc 2.36").
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    out.status.success() && (a, b) >= (major, minor)
}
