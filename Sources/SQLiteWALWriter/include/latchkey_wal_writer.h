#ifndef LATCHKEY_WAL_WRITER_H
#define LATCHKEY_WAL_WRITER_H

/// Registers the "latchkey" SQLite VFS: the system's default VFS, with the writes of each
/// transaction to a write-ahead log coalesced into one system call. Safe to call more than
/// once. Returns SQLITE_OK or an SQLite error code.
int latchkey_register_wal_writer(void);

/// The name to pass to sqlite3_open_v2 as its VFS.
extern const char *const latchkey_wal_writer_vfs_name;

#endif
