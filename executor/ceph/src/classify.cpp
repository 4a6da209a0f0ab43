#include "netns_exec/ceph.hpp"
