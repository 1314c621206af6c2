/* limits_storage.h - limits of the storage writer, readers and accounts. */
#ifndef AGON_LIMITS_STORAGE_H
#define AGON_LIMITS_STORAGE_H

#endif
