//! The last guard against running out of memory. The engine and the PRISM builder check the
//! memory left as their tables grow and stop with an error in time; anything else that cannot
//! get memory (under `ulimit -v` or `prlimit --as`, say) would abort the process with Rust's
//! "memory allocation failed". This allocator, the system's with one check, ends the command
//! instead with the usual `error:` line and exit code 2.

// An allocator is unsafe code by nature; this module is the one place the crate allows it.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;

/// The system allocator, ending the process cleanly where it has no memory to give.
pub struct Guarded;

/// Says that memory ran out and ends the process. Allocates nothing: the message is static and
/// stderr is unbuffered.
#[cold]
fn out_of_memory(size: usize) -> ! {
    // In a process of a local run, the line goes to the launcher (`say::write_fatal`).
    let fatal = crate::say::fatal_file();
    let put = |bytes: &[u8]| {
        let _ = match fatal {
            Some(mut file) => file.write_all(bytes),
            None => std::io::stderr().write_all(bytes),
        };
    };
    put(b"error: out of memory: ");
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = size;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    put(&digits[at..]);
    put(
        b" more bytes could not be had (the process's memory limit or the machine's memory \
          is reached)\n",
    );
    std::process::exit(2)
}

// SAFETY: every call is passed to the system allocator unchanged; only a null result, which
// the caller would otherwise turn into an abort, ends the process instead.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees on `layout` are passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which is the system's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, with the caller's guarantees on `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
}
