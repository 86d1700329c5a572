#include "JQBaseline.h"
