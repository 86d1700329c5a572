// libjq (Debian's libjq-dev 1.6; builds unchanged against 1.7+).
// libjq 1.6 ships no pkg-config file, so the module map links "jq" itself.
#ifndef JOURNEY_CJQ_SHIM_H
#define JOURNEY_CJQ_SHIM_H

#include <jq.h>
#include <jv.h>

#endif
