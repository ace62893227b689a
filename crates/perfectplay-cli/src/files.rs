//! Files written whole or not at all: the content goes to a temporary file beside the target,
//! which replaces the target only once it is complete. A full disk, a file-size limit or an
//! interrupt never leaves a truncated file under the target's name, and never destroys the file
//! that was there.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// A file being written in place of `target`.
pub struct Replacement {
    file: File,
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Replacement {
    /// Starts replacing `target`: creates the temporary file `.NAME.PID.tmp` in its folder.
    pub fn create(target: &str) -> io::Result<Replacement> {
        let target = PathBuf::from(target);
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = folder.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&tmp)?;
        crate::interrupt::temporary(&tmp, true);
        Ok(Replacement {
            file,
            tmp,
            target,
            done: false,
        })
    }

    /// The temporary file, to write to.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Puts the complete file in place of the target.
    pub fn commit(mut self) -> io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.tmp, &self.target)?;
        crate::interrupt::temporary(&self.tmp, false);
        self.done = true;
        Ok(())
    }
}

impl Drop for Replacement {
    /// A replacement that was not committed (an error on the way) leaves nothing behind.
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
            crate::interrupt::temporary(&self.tmp, false);
        }
    }
}

/// Writes `bytes` to `target` whole or not at all.
pub fn write(target: &str, bytes: &[u8]) -> io::Result<()> {
    let r = Replacement::create(target)?;
    io::Write::write_all(&mut r.file(), bytes)?;
    r.commit()
}

/// Whether `path` names a folder (a target that can only be an error).
pub fn is_folder(path: &str) -> bool {
    Path::new(path).is_dir()
}
