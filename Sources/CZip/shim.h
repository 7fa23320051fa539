#ifndef WALLET_ORDERS_CZIP_SHIM_H
#define WALLET_ORDERS_CZIP_SHIM_H
#include <zip.h>
// zlib, which libzip itself uses: raw deflate and CRC-32 for the package writer.
#include <zlib.h>

// deflateInit2 is a macro, which Swift cannot import.
static inline int wo_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}
#endif
