// The system SQLite (Debian: libsqlite3-dev), which StorageSQLite uses directly.
#include <sqlite3.h>
