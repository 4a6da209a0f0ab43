#include "netns_exec/inspect/doctor.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <set>

#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns/nsfd.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/inspect/netns_thread.hpp"
#include "netns_exec/inspect/rtnl.hpp"
#include "netns_exec/inspect/tcp_probe.hpp"
#include "netns_exec/inspect/text_table.hpp"
#include "netns_exec/shim/monitors.hpp"

namespace netns::inspect {

const char* status_name(CheckStatus s) noexcept {
  switch (s) {
    case CheckStatus::pass:
      return "PASS";
    case CheckStatus::fail:
      return "FAIL";
    case CheckStatus::skip:
      break;
  }
  return "SKIP";
}

namespace {

Check pass(std::string name, std::string detail) {
  return {std::move(name), CheckStatus::pass, std::move(detail), {}};
}
Check fail(std::string name, std::string detail, std::string hint) {
  return {std::move(name), CheckStatus::fail, std::move(detail), std::move(hint)};
}
Check skip(std::string name, std::string detail) {
  return {std::move(name), CheckStatus::skip, std::move(detail), {}};
}

}  // namespace

std::vector<Check> checks_from(const std::vector<trust::Finding>& findings) {
  std::vector<Check> out;
  for (const auto& f : findings) {
    if (!f.ok)
      out.push_back(fail(f.check, f.detail, f.hint));
    else if (!f.known)
      out.push_back(skip(f.check, f.detail));
    else
      out.push_back(pass(f.check, f.detail));
  }
  return out;
}

std::string checks_json(const std::vector<Check>& checks) {
  nlohmann::ordered_json doc;
  doc["ok"] = all_passed(checks);
  doc["checks"] = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    nlohmann::ordered_json entry;
    entry["name"] = c.name;
    entry["status"] = status_name(c.status);
    entry["detail"] = c.detail;
    entry["hint"] =
        c.hint.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.hint);
    doc["checks"].push_back(std::move(entry));
  }
  return doc.dump(2) + "\n";
}

std::vector<Check> check_inside(int nsfd, std::string_view shown,
                                const std::vector<Endpoint>& monitors,
                                std::chrono::milliseconds connect_timeout) {
  std::vector<Check> c;
  RtnlClient rtnl(netlink_sockets_in_netns(nsfd, shown).route);
  auto links = rtnl.links();
  auto addrs = rtnl.addresses();

  auto lo = std::find_if(links.begin(), links.end(), [](const Link& l) { return l.loopback; });
  if (lo != links.end() && lo->up)
    c.push_back(pass("lo up", "lo is up"));
  else
    c.push_back(fail("lo up", lo == links.end() ? "no loopback device" : "lo is down",
                     "a pod sandbox brings lo up; this namespace was not set up by one"));

  std::string found;
  for (const auto& l : links) {
    if (l.loopback || !l.up) continue;
    for (const auto& a : addrs)
      if (a.index == l.index && a.scope != "host" && a.scope != "link") {
        found = l.name + " " + a.addr.str() + "/" + std::to_string(a.prefix);
        break;
      }
    if (!found.empty()) break;
  }
  if (!found.empty())
    c.push_back(pass("interface up with an address", found));
  else
    c.push_back(fail("interface up with an address",
                     "no non-loopback interface is up with an address",
                     "the storage network attachment (CNI/Multus) is missing or down in the "
                     "holder's pod"));

  if (monitors.empty()) {
    c.push_back(skip("monitors",
                     "none given: pass --mon ADDR:PORT or a --cluster-id whose "
                     "config lists monitors"));
    return c;
  }
  // Routes first, then connects: a monitor without a route is reported once,
  // on its route line, and its connect is skipped rather than failed again.
  std::vector<bool> routed;
  for (const auto& mon : monitors) {
    std::string name = "route to " + mon.str();
    auto route = rtnl.route_to(mon.addr);
    routed.push_back(route.has_value());
    if (!route) {
      c.push_back(fail(name, "no route",
                       "add a route to the monitors' network in the holder's namespace (its "
                       "CNI/Multus configuration)"));
    } else {
      std::string via = route->gateway.empty() ? "direct" : "via " + route->gateway.str();
      if (!route->dev.empty()) via += " dev " + route->dev;
      if (!route->prefsrc.empty()) via += " src " + route->prefsrc.str();
      c.push_back(pass(name, via));
    }
  }
  for (size_t i = 0; i < monitors.size(); ++i) {
    const Endpoint& mon = monitors[i];
    std::string name = "connect to " + mon.str();
    if (!routed[i]) {
      c.push_back(skip(name, "no route (see above)"));
      continue;
    }
    ProbeResult r = tcp_probe(nsfd, shown, mon, connect_timeout);
    switch (r.outcome) {
      case ProbeOutcome::connected:
        c.push_back(pass(name, r.describe()));
        break;
      case ProbeOutcome::refused:
        c.push_back(fail(name, r.describe(),
                         "the host answers but nothing listens on that port: "
                         "is the monitor running, is the port right?"));
        break;
      case ProbeOutcome::no_route:
        c.push_back(
            fail(name, r.describe(), "no route to the monitor from the holder's namespace"));
        break;
      case ProbeOutcome::timed_out:
        c.push_back(fail(name, r.describe(),
                         "packets go unanswered: a firewall, a wrong gateway, "
                         "or the monitor host is down"));
        break;
      case ProbeOutcome::error:
        c.push_back(fail(name, r.describe(), ""));
        break;
    }
  }
  return c;
}

std::vector<Check> check_plugin_route(const std::vector<Endpoint>& monitors) {
  UniqueFd own = open_fd("/proc/thread-self/ns/net", O_RDONLY);
  const std::string shown = "doctor's own namespace net:[" +
                            std::to_string(ns_id_of_fd(own.get(), "own namespace").ino) + "]";
  RtnlClient rtnl(netlink_sockets_in_netns(own.get(), shown).route);
  std::vector<Check> c;
  for (const auto& mon : monitors) {
    std::string name = "plugin's route to " + mon.str();
    auto route = rtnl.route_to(mon.addr);
    if (!route) {
      c.push_back(fail(name, "no route from " + shown,
                       "ceph-csi opens its own RADOS connections (CreateVolume, NodeStageVolume "
                       "before rbd map) from the plugin pod: give the node plugin pod the storage "
                       "network too (Multus annotation k8s.v1.cni.cncf.io/networks), and run "
                       "doctor in the plugin container"));
      continue;
    }
    std::string via = route->gateway.empty() ? "direct" : "via " + route->gateway.str();
    if (!route->dev.empty()) via += " dev " + route->dev;
    c.push_back(pass(name, via + " (" + shown + ")"));
  }
  return c;
}

std::string render_checks(const std::vector<Check>& checks) {
  TextTable t({}, "");
  for (const auto& c : checks) t.add({status_name(c.status), c.name, c.detail});
  // Hints go on their own line under the failed check, so the table is
  // rendered row by row.
  std::string table = t.render();
  std::string out;
  size_t pos = 0;
  for (const auto& c : checks) {
    size_t nl = table.find('\n', pos);
    out += table.substr(pos, nl - pos + 1);
    pos = nl + 1;
    if (c.status == CheckStatus::fail && !c.hint.empty()) out += "      hint: " + c.hint + "\n";
  }
  return out;
}

bool all_passed(const std::vector<Check>& checks) {
  return std::none_of(checks.begin(), checks.end(),
                      [](const Check& c) { return c.status == CheckStatus::fail; });
}

// Through the executor's reader: the monitors ceph-csi itself would use
// (keys matched as Go's encoding/json matches them, the first entry of the
// ID), and the file opened under the same checks as --cluster-id's.
std::vector<Endpoint> monitors_from_config(const std::string& config,
                                           const std::string& cluster_id) {
  const exec::CephCsiConfig decoded = exec::read_ceph_csi_config(config);
  const exec::CephCsiCluster* entry = decoded.find(cluster_id);
  if (!entry)
    throw Error(Errc::not_found,
                "ceph-csi config " + quote(config) + ": no cluster " + quote(cluster_id),
                "check the clusterID in the StorageClass and the ceph-csi-config ConfigMap");
  // A monitor as ceph-csi writes it (v1:/v2: prefixes, address vectors,
  // lists in one string): the shim's reading, the one home of that syntax.
  const std::string what = "ceph-csi config " + quote(config) + " monitor ";
  std::vector<Endpoint> out;
  for (const auto& m : entry->monitors) {
    const exec::shim::MonitorList list = exec::shim::parse_monitors(m);
    for (const auto& bad : list.bad)
      throw Error(Errc::invalid_argument, what + quote(bad) + ": not a monitor address",
                  "write ADDR:PORT, e.g. 198.18.0.10:6789 or [fd00::10]:3300");
    for (const auto& server : list.monitors) {
      if (server.host.addresses.empty())
        throw Error(Errc::invalid_argument,
                    what + quote(server.text) + ": not a numeric IPv4 or IPv6 address",
                    "doctor connects to addresses; pass --mon ADDR:PORT");
      // No port written: the legacy 6789, which every monitor listens on.
      const std::set<uint16_t> unwritten{exec::shim::kMsgr2Port, exec::shim::kMsgr1Port};
      const std::set<uint16_t> ports =
          server.ports == unwritten ? std::set<uint16_t>{exec::shim::kMsgr1Port} : server.ports;
      for (const auto& a : server.host.addresses)
        for (uint16_t port : ports)
          if (auto ip = IpAddr::parse(a)) out.push_back(Endpoint{*ip, port});
    }
  }
  return out;
}

}  // namespace netns::inspect
