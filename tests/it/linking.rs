//! The program is linked as build.rs says (Linux, glibc): the status line's
//! code side by side at the start of the code, the unwinder linked in
//! rather than loaded, the relative relocations packed. build.rs tells the
//! tests what it chose (`CLAUDIO_LINKED`); each choice is checked in the
//! built program's ELF headers.

/// What build.rs chose for this build: words among `hot`, `eh`, `relr`
/// (`plain`: none, as `CLAUDIO_PLAIN_LINK` asked).
const LINKED: &str = env!("CLAUDIO_LINKED");

struct Elf {
    bytes: Vec<u8>,
}

struct Section {
    name: String,
    kind: u32,
    addr: u64,
    offset: usize,
    size: usize,
    link: usize,
}

impl Elf {
    fn read() -> Elf {
        Elf::of(env!("CARGO_BIN_EXE_claudio"))
    }

    /// The status line's own program, `claudio-statusline`.
    fn of_statusline() -> Elf {
        Elf::of(env!("CARGO_BIN_EXE_claudio-statusline"))
    }

    fn of(path: &str) -> Elf {
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(&bytes[..4], b"\x7fELF");
        assert_eq!(bytes[4], 2, "64-bit");
        assert_eq!(bytes[5], 1, "little-endian");
        Elf { bytes }
    }

    fn u16(&self, at: usize) -> usize {
        u16::from_le_bytes(self.bytes[at..at + 2].try_into().unwrap()) as usize
    }

    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap())
    }

    fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap())
    }

    fn str_at(&self, at: usize) -> String {
        let end = at + self.bytes[at..].iter().position(|&b| b == 0).unwrap();
        String::from_utf8_lossy(&self.bytes[at..end]).into_owned()
    }

    fn sections(&self) -> Vec<Section> {
        let (off, size, count) = (self.u64(0x28) as usize, self.u16(0x3a), self.u16(0x3c));
        let raw = |i: usize| {
            let h = off + i * size;
            (
                self.u32(h) as usize,
                self.u32(h + 4),
                self.u64(h + 0x10),
                self.u64(h + 0x18) as usize,
                self.u64(h + 0x20) as usize,
                self.u32(h + 0x28) as usize,
            )
        };
        let names = raw(self.u16(0x3e)).3;
        (0..count)
            .map(|i| {
                let (name, kind, addr, offset, size, link) = raw(i);
                Section {
                    name: self.str_at(names + name),
                    kind,
                    addr,
                    offset,
                    size,
                    link,
                }
            })
            .collect()
    }

    /// The dynamic section's entries: (tag, value).
    fn dynamic(&self, sections: &[Section]) -> Vec<(u64, u64)> {
        let d = sections.iter().find(|s| s.name == ".dynamic").unwrap();
        (0..d.size / 16)
            .map(|i| (self.u64(d.offset + i * 16), self.u64(d.offset + i * 16 + 8)))
            .take_while(|&(tag, _)| tag != 0)
            .collect()
    }

    /// The shared libraries the program asks the loader for.
    fn needed(&self, sections: &[Section]) -> Vec<String> {
        let d = sections.iter().find(|s| s.name == ".dynamic").unwrap();
        let strings = sections[d.link].offset;
        self.dynamic(sections)
            .into_iter()
            .filter(|&(tag, _)| tag == 1) // DT_NEEDED
            .map(|(_, at)| self.str_at(strings + at as usize))
            .collect()
    }

    /// How many functions and data symbols have a name that holds `part`.
    fn symbols_named(&self, sections: &[Section], part: &str) -> usize {
        let tab = sections.iter().find(|s| s.kind == 2).unwrap(); // SHT_SYMTAB
        let strings = sections[tab.link].offset;
        (0..tab.size / 24)
            .map(|i| tab.offset + i * 24)
            .filter(|&s| matches!(self.bytes[s + 4] & 0xf, 1 | 2)) // STT_OBJECT, STT_FUNC
            .filter(|&s| self.str_at(strings + self.u32(s) as usize).contains(part))
            .count()
    }

    /// The address of each function symbol whose name holds `part`.
    fn functions_named(&self, sections: &[Section], part: &str) -> Vec<u64> {
        let tab = sections.iter().find(|s| s.kind == 2).unwrap(); // SHT_SYMTAB
        let strings = sections[tab.link].offset;
        (0..tab.size / 24)
            .map(|i| tab.offset + i * 24)
            .filter(|&s| self.bytes[s + 4] & 0xf == 2) // STT_FUNC
            .filter(|&s| self.str_at(strings + self.u32(s) as usize).contains(part))
            .map(|s| self.u64(s + 8))
            .collect()
    }
}

fn chose(what: &str) -> bool {
    LINKED.split_whitespace().any(|w| w == what)
}

#[test]
fn build_script_links_glibc_builds_for_a_fast_start() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert_eq!(LINKED, "", "only glibc builds are linked otherwise");
        return;
    }
    // the code's order needs nothing but GNU ld or lld (the unwinder and
    // the packed relocations depend on the machine: checked when chosen)
    assert!(chose("hot") || chose("plain"), "{LINKED:?}");
}

#[test]
fn the_status_lines_code_is_side_by_side_at_the_start_of_the_code() {
    if !chose("hot") {
        return;
    }
    for (elf, whole) in [(Elf::read(), true), (Elf::of_statusline(), false)] {
        let sections = elf.sections();
        let hot = sections
            .iter()
            .find(|s| s.name == ".text.hot.statusline")
            .expect("the hot section");
        let text = sections.iter().find(|s| s.name == ".text").unwrap();
        assert!(hot.size > 0 && hot.addr < text.addr);
        // the status line's own function and its reading of stdin are in it;
        // a function it never runs (the chat's) is not
        let inside = |a: &u64| (hot.addr..hot.addr + hot.size as u64).contains(a);
        for part in ["10statusline3run", "5stdin9read_json"] {
            let found = elf.functions_named(&sections, part);
            assert!(!found.is_empty(), "no function {part}");
            assert!(found.iter().any(inside), "{part} is not in the hot code");
        }
        let chat = elf.functions_named(&sections, "4chat4repl3run");
        assert_eq!(!chat.is_empty(), whole);
        assert!(!chat.iter().any(inside));
    }
}

#[test]
fn the_unwinder_is_linked_in_and_the_relocations_packed() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    for elf in [Elf::read(), Elf::of_statusline()] {
        let sections = elf.sections();
        let needed = elf.needed(&sections);
        assert!(
            needed.iter().any(|n| n.starts_with("libc.so")),
            "{needed:?}"
        );
        if chose("eh") {
            assert!(
                !needed.iter().any(|n| n.starts_with("libgcc_s")),
                "{needed:?}"
            );
        }
        if chose("relr") {
            // DT_RELR
            assert!(elf.dynamic(&sections).iter().any(|&(tag, _)| tag == 36));
        }
    }
}

/// The C maths library is not loaded: the program defines the one
/// function of it its dependencies call (`pow`, src/start.rs), and its own
/// code calls none (the regex prefilter's score is counted in whole
/// numbers), so the link leaves `libm.so` out. The same for
/// `claudio-statusline`.
#[test]
fn the_maths_library_is_not_loaded() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    for elf in [Elf::read(), Elf::of_statusline()] {
        let sections = elf.sections();
        let needed = elf.needed(&sections);
        assert!(!needed.iter().any(|n| n.starts_with("libm.")), "{needed:?}");
        assert!(
            needed.iter().any(|n| n.starts_with("libc.so")),
            "{needed:?}"
        );
    }
}

/// `claudio-statusline` holds the status line and not the rest of
/// `claudio`: none of the markdown renderer, the regex engine's tables or
/// the chat, whose relocated data the loader writes at every start; its
/// relocated data (`.data.rel.ro`) under a third of `claudio`'s.
#[test]
fn the_status_line_program_holds_the_status_line_alone() {
    let (whole, line) = (Elf::read(), Elf::of_statusline());
    let (ws, ls) = (whole.sections(), line.sections());
    assert!(!line.functions_named(&ls, "10statusline3run").is_empty());
    for part in [
        "pulldown_cmark",
        "regex_syntax",
        "4chat4repl",
        "8sessions6search",
    ] {
        assert!(whole.symbols_named(&ws, part) > 0, "claudio has no {part}");
        assert_eq!(line.symbols_named(&ls, part), 0, "{part}");
    }
    let relocated = |s: &[Section]| {
        s.iter()
            .find(|s| s.name == ".data.rel.ro")
            .map_or(0, |s| s.size)
    };
    let (w, l) = (relocated(&ws), relocated(&ls));
    assert!(l > 0 && l * 3 < w, "{l} bytes against {w}");
}

/// The program's `pow` (Rust's libm) gives the maths library's answers,
/// to within a unit in the last place, where its callers use it: tokio's
/// `(1 - 0.1)^polls` and indicatif's `0.1^(age / 15 s)`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_program_s_pow_is_the_maths_library_s() {
    let close = |x: f64, y: f64| {
        let (a, b) = (libm::pow(x, y), x.powf(y));
        assert!(
            a == b || (a.to_bits() as i64 - b.to_bits() as i64).abs() <= 1,
            "pow({x}, {y}): {a} against {b}"
        );
    };
    for polls in 0..=2000 {
        close(0.9, f64::from(polls));
    }
    for ms in (0..=120_000).step_by(7) {
        close(0.1, f64::from(ms) / 1000.0 / 15.0);
    }
    // the edges: 0, 1, infinities, NaN
    for (x, y) in [
        (0.0, 0.0),
        (1.0, f64::NAN),
        (0.9, f64::INFINITY),
        (0.1, -0.0),
    ] {
        let (a, b) = (libm::pow(x, y), x.powf(y));
        assert!(a == b || (a.is_nan() && b.is_nan()), "pow({x}, {y})");
    }
}

#[test]
fn the_program_starts_at_its_own_main_not_at_std_s_start() {
    // std's start (`std::rt::lang_start`, made for `fn main`) reads
    // /proc/self/maps and maps a signal stack before main: left out
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let elf = Elf::read();
    let sections = elf.sections();
    assert!(!elf.functions_named(&sections, "main").is_empty());
    assert!(elf.functions_named(&sections, "2rt10lang_start").is_empty());
}

/// What std's start did that the program's own does: a write to a pipe no
/// one reads fails rather than kills (`SIGPIPE` ignored), and a closed
/// standard stream is opened on /dev/null (what is written there goes
/// nowhere, not into a file opened later).
#[cfg(unix)]
#[test]
fn a_closed_pipe_or_stream_neither_kills_nor_misdirects_the_program() {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut ends = [0; 2];
    // SAFETY: `ends` holds the two descriptors pipe() writes
    assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are new and owned here alone
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    drop(read);
    let status = Command::new(env!("CARGO_BIN_EXE_claudio"))
        .arg("--help")
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.signal(), None, "{status:?}");
    // stdout closed: `--version` prints to /dev/null and succeeds
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec {} --version >&-",
            env!("CARGO_BIN_EXE_claudio")
        ))
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
}
