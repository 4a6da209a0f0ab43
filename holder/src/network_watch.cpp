#include "network_watch.hpp"

#include <linux/rtnetlink.h>

#include "log.hpp"
#include "netns/error.hpp"

namespace netns::holder {

NetworkWatch::NetworkWatch()
    : notify_(open_route_socket(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, true)),
      dump_(open_route_socket(0, false)),
      state_(read_net_snapshot(dump_.get(), "the holder's network namespace")) {}

bool NetworkWatch::refresh() {
  drain_route_socket(notify_.get());
  try {
    NetSnapshot now = read_net_snapshot(dump_.get(), "the holder's network namespace");
    bool changed = now != state_;
    state_ = std::move(now);
    return changed;
  } catch (const Error& e) {
    log_warning(
        "could not re-read the namespace's addresses (keeping the "
        "published ones): " +
        e.describe());
    return false;
  }
}

}  // namespace netns::holder
