#ifndef WALLET_ORDERS_CZIP_SHIM_H
#define WALLET_ORDERS_CZIP_SHIM_H
#include <zip.h>
#endif
