// libpq (Debian's libpq-dev, pkg-config libpq).
#ifndef JOURNEY_CPOSTGRES_SHIM_H
#define JOURNEY_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

#endif
