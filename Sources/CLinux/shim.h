#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

/* Linux calls Glibc's Swift overlay leaves out, for ConcurrencyKit's Doorbell: eventfd(2).
   Imported by ConcurrencyKit only. */
#include <sys/eventfd.h>

#endif /* CLINUX_SHIM_H */
