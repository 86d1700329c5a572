// libyaml (Debian's libyaml-dev, pkg-config yaml-0.1).
#ifndef JOURNEY_CYAML_SHIM_H
#define JOURNEY_CYAML_SHIM_H

#include <yaml.h>

#endif
