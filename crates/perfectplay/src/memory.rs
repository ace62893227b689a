//! A guard against running the machine out of memory. A game too large for the machine would
//! otherwise end with the system killing the process, and no word of why; exploration instead
//! checks every 65,536 new states that the memory left is enough for its tables to grow once
//! more, and stops with [`SolveError::TooLarge`](crate::SolveError::TooLarge) when it is not.
//!
//! The readings come from Linux's `/proc` and from the memory cgroup (v2 or v1) the process
//! runs in, if that sets a lower limit than the machine. Elsewhere there is no reading and no
//! check.

use std::fs;

/// Memory the process must keep free beyond half its size.
pub(crate) const MARGIN: u64 = 256 << 20;

/// Bytes this process has resident and bytes it can still get (from the machine, or from its
/// memory cgroup if that allows less); `None` where this cannot be read.
pub(crate) fn reading() -> Option<(u64, u64)> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let resident = kib_field(&status, "VmRSS:")?;
    let mut available = kib_field(&fs::read_to_string("/proc/meminfo").ok()?, "MemAvailable:")?;
    if let Some(left) = cgroup_left() {
        available = available.min(left);
    }
    // The process's own address-space limit (`ulimit -v`, `prlimit --as`) counts every
    // mapping, resident or not: then the size that may double is the mapped one.
    if let (Some(limit), Some(size)) = (address_space_limit(), kib_field(&status, "VmSize:")) {
        available = available.min(limit.saturating_sub(size));
        return Some((resident.max(size), available));
    }
    Some((resident, available))
}

/// The bytes this process can still get (from the machine, its memory cgroup or its own
/// address-space limit, whichever allows least); `None` where this cannot be read.
pub fn available() -> Option<u64> {
    reading().map(|(_, available)| available)
}

/// The soft limit on this process's address space, if one is set (`/proc/self/limits`).
fn address_space_limit() -> Option<u64> {
    let limits = fs::read_to_string("/proc/self/limits").ok()?;
    soft_limit(&limits, "Max address space")
}

/// The soft limit of the `name` line of a `/proc/self/limits` text; `None` if unlimited.
fn soft_limit(limits: &str, name: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// Whether a one-off allocation of `bytes` (a table reserved ahead) leaves the margin free;
/// `true` where memory cannot be read.
pub(crate) fn affords(bytes: u64) -> bool {
    reading().is_none_or(|(_, available)| available >= bytes + MARGIN)
}

/// What the memory cgroup of this process still allows, if it sets a limit: its own directory
/// (named in `/proc/self/cgroup`) is tried first, then the root of the mount (a container
/// often sees its own cgroup there).
fn cgroup_left() -> Option<u64> {
    let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // v2: `0::/path`; v1: `4:memory:/path` (controllers may be listed together).
    let path = |v2: bool| {
        own.lines().find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (id, controllers, path) = (f.next()?, f.next()?, f.next()?);
            let found = match v2 {
                true => id == "0" && controllers.is_empty(),
                false => controllers.split(',').any(|c| c == "memory"),
            };
            found.then(|| path.trim_start_matches('/').to_string())
        })
    };
    let read = |p: String| fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    let mounts = [
        ("/sys/fs/cgroup", "memory.max", "memory.current", path(true)),
        (
            "/sys/fs/cgroup/memory",
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
            path(false),
        ),
    ];
    for (mount, limit, usage, own) in mounts {
        for dir in own
            .iter()
            .map(|p| format!("{mount}/{p}"))
            .chain([mount.to_string()])
        {
            // "max" (v2) or a huge number (v1) is no limit.
            if let (Some(limit), Some(usage)) = (
                read(format!("{dir}/{limit}")),
                read(format!("{dir}/{usage}")),
            ) {
                if limit < 1 << 60 {
                    return Some(limit.saturating_sub(usage));
                }
            }
        }
    }
    None
}

/// The value in bytes of a `Name:   123 kB` line.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// Whether a process of `resident` bytes may go on with `available` bytes left: its largest
/// tables may double at once (both copies are resident while one grows into the other), so
/// it needs half its size, and a margin for everything else.
pub(crate) fn room(resident: u64, available: u64) -> bool {
    available >= resident / 2 + MARGIN
}

/// Whether a process that has made `states` states may go on: an error
/// ([`SolveError::TooLarge`](crate::SolveError::TooLarge)) once the memory left is less than
/// its tables need to grow once more (half its size and a margin). Front ends that build large
/// tables of their own (a model's state space) call it now and then, as exploration does.
#[cold]
#[inline(never)]
pub fn check(states: usize) -> Result<(), crate::SolveError> {
    match reading() {
        Some((resident, available)) if !room(resident, available) => {
            Err(too_large(states, resident, available))
        }
        _ => Ok(()),
    }
}

/// The error of a solve stopped for want of memory after `states` states.
#[cold]
pub(crate) fn too_large(states: usize, resident: u64, available: u64) -> crate::SolveError {
    let gb = |b: u64| b as f64 / 1e9;
    crate::SolveError::TooLarge {
        what: format!(
            "the game needs more memory than is left: stopped after {states} states, with \
             {:.1} GB in use and {:.1} GB free",
            gb(resident),
            gb(available)
        ),
    }
}

/// Runs every job and returns their results in order: the first on the calling thread, each
/// other on a thread of its own where one can be started, and on the calling thread where it
/// cannot (under a memory limit a new thread's stack may not fit). A job that panics makes
/// this panic.
///
/// ```
/// let xs = [1, 2, 3];
/// let doubled = perfectplay::memory::on_threads(xs.iter().map(|x| move || 2 * x).collect());
/// assert_eq!(doubled, vec![2, 4, 6]);
/// ```
pub fn on_threads<T: Send, F: FnOnce() -> T + Send>(jobs: Vec<F>) -> Vec<T> {
    let slots: Vec<std::sync::Mutex<Option<F>>> = jobs
        .into_iter()
        .map(|f| std::sync::Mutex::new(Some(f)))
        .collect();
    // Whoever takes a job runs it: the thread started for it, or this one if none started.
    let take = |i: usize| slots[i].lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|scope| {
        let take = &take;
        let started: Vec<_> = (1..slots.len())
            .map(|i| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || take(i).map(|f| f()))
                    .ok()
            })
            .collect();
        let mut out = Vec::with_capacity(slots.len());
        out.extend(take(0).map(|f| f()));
        for (i, handle) in started.into_iter().enumerate() {
            let done = match handle.map(|h| h.join()) {
                Some(Ok(done)) => done,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => None,
            };
            match done {
                Some(r) => out.push(r),
                None => out.extend(take(i + 1).map(|f| f())),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_half_the_process_and_a_margin() {
        let gib = 1 << 30;
        assert!(room(gib, gib));
        assert!(room(4 * gib, 2 * gib + MARGIN));
        assert!(!room(4 * gib, 2 * gib + MARGIN - 1));
        assert!(!room(0, MARGIN - 1));
    }

    #[test]
    fn fields_are_read_in_bytes() {
        let text = "Name:\tx\nVmPeak:\t  9 kB\nVmRSS:\t    2004 kB\n";
        assert_eq!(kib_field(text, "VmRSS:"), Some(2004 * 1024));
        assert_eq!(kib_field(text, "VmSwap:"), None);
    }

    #[test]
    fn address_space_limits_are_read() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max stack size            8388608              unlimited            bytes\n\
                    Max address space         600000000            unlimited            bytes\n";
        assert_eq!(soft_limit(text, "Max address space"), Some(600_000_000));
        assert_eq!(soft_limit(text, "Max stack size"), Some(8_388_608));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(soft_limit(unlimited, "Max address space"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_can_be_read() {
        let (resident, available) = reading().expect("Linux has /proc");
        assert!(resident > 0 && available > 0);
    }
}
