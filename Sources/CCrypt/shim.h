// libxcrypt's crypt_r: bcrypt, for password hashes imported from other identity servers.
#include <crypt.h>
