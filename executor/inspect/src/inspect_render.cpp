#include <netinet/tcp.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <span>

#include "netns/duration.hpp"
#include "netns/join.hpp"
#include "netns_exec/inspect/inspect_report.hpp"
#include "netns_exec/inspect/text_table.hpp"

namespace netns::inspect {

TextTable::TextTable(std::vector<std::string> header, std::string indent)
    : header_(std::move(header)), indent_(std::move(indent)) {}

void TextTable::add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

std::string TextTable::render() const {
  std::vector<size_t> width;
  auto measure = [&](const std::vector<std::string>& row) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  if (!header_.empty()) measure(header_);
  for (const auto& r : rows_) measure(r);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line = indent_;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  if (!header_.empty()) emit(header_);
  for (const auto& r : rows_) emit(r);
  return out;
}

namespace {

using json = nlohmann::ordered_json;

const char* family_name(int family) { return family == AF_INET6 ? "inet6" : "inet"; }

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

json str_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string yes_no(std::optional<bool> b) { return !b ? "unknown" : *b ? "yes" : "no"; }

std::map<std::string, std::map<std::string, size_t>> state_counts(const Report& r) {
  // Counted in a flat array first: this runs over every socket.
  size_t raw[2][256] = {};
  for (const auto& s : r.sockets) ++raw[s.proto == Proto::tcp ? 0 : 1][s.state];
  std::map<std::string, std::map<std::string, size_t>> counts;
  for (Proto p : {Proto::tcp, Proto::udp})
    for (size_t st = 0; st < 256; ++st)
      if (size_t n = raw[p == Proto::tcp ? 0 : 1][st])
        counts[proto_name(p)][std::string(state_name(p, static_cast<uint8_t>(st)))] += n;
  return counts;
}

// The link's addresses, in dump order.
std::vector<Address> addresses_of(const Report& r, const Link& l) {
  std::vector<Address> own;
  std::copy_if(r.addresses.begin(), r.addresses.end(), std::back_inserter(own),
               [&](const Address& a) { return a.index == l.index; });
  return own;
}

// null in JSON: not looked up, so unknown.
std::optional<bool> kernel_flag(const Report& r, const InetSocket& s) {
  if (s.inode != 0 && !r.looked_up.contains(s.inode)) return std::nullopt;
  return r.is_kernel_socket(s);
}

}  // namespace

void to_json(json& j, const InetSocket& s) {
  j = json{{"proto", proto_name(s.proto)},
           {"family", family_name(s.local.addr.family)},
           {"state", state_name(s.proto, s.state)},
           {"local", s.local.str()},
           {"peer", s.remote.str()},
           {"local_address", s.local.addr.str()},
           {"local_port", s.local.port},
           {"peer_address", s.remote.addr.str()},
           {"peer_port", s.remote.port},
           {"uid", s.uid},
           {"inode", s.inode}};
}

void to_json(json& j, const Link& l) {
  j = json{{"index", l.index},
           {"name", l.name},
           {"kind", str_or_null(l.kind)},
           {"up", l.up},
           {"lower_up", l.lower_up},
           {"operstate", l.operstate},
           {"mtu", l.mtu},
           {"mac", str_or_null(l.mac)},
           {"master", l.master == 0 ? json(nullptr) : json(l.master)}};
}

void to_json(json& j, const Address& a) {
  j = json{{"family", family_name(a.addr.family)},
           {"address", a.addr.str()},
           {"prefix", a.prefix},
           {"scope", a.scope}};
}

void to_json(json& j, const Route& rt) {
  j = json{{"family", family_name(rt.family)},
           {"table", rt.table},
           {"dst", rt.dst},
           {"type", rt.type},
           {"gateway", rt.gateway.empty() ? json(nullptr) : json(rt.gateway.str())},
           {"dev", str_or_null(rt.dev)},
           {"prefsrc", rt.prefsrc.empty() ? json(nullptr) : json(rt.prefsrc.str())},
           {"metric", rt.metric},
           {"protocol", rt.protocol},
           {"scope", rt.scope}};
}

void to_json(json& j, const CephPorts& p) {
  j = json{{"mon", format_port_ranges(p.mon)},
           {"osd", format_port_ranges(p.osd)},
           {"nvme", format_port_ranges(p.nvme)},
           {"nvme_discovery", format_port_ranges(p.nvme_discovery)},
           {"nfs", format_port_ranges(p.nfs)}};
}

void to_json(json& j, const PeerSessions& g) {
  j = json{
      {"peer", g.peer.str()},      {"peer_address", g.peer.addr.str()}, {"peer_port", g.peer.port},
      {"role", role_name(g.role)}, {"established", g.established},      {"total", g.sockets.size()},
      {"kernel", g.kernel}};
}

json socket_json(const InetSocket& s, std::optional<bool> kernel) {
  json j = s;
  j["kernel"] = kernel ? json(*kernel) : json(nullptr);
  return j;
}

json render_json(const Report& r, bool all_sockets) {
  json root;
  root["format"] = 1;
  json ns;
  ns["path"] = str_or_null(r.identity.path);
  ns["cluster_id"] = str_or_null(r.identity.cluster_id);
  ns["netns_dev"] = r.identity.netns.dev;
  ns["netns_ino"] = r.identity.netns.ino;
  if (const auto& rec = r.identity.record) {
    json h;
    h["pid"] = rec->pid;
    h["pid_start_time"] = rec->pid_start_time;
    h["alive"] = r.holder_alive ? json(*r.holder_alive) : json(nullptr);
    h["created_unix"] = rec->created_unix;
    h["age_seconds"] = r.age_seconds ? json(*r.age_seconds) : json(nullptr);
    h["boot_id"] = rec->boot_id;
    h["socket"] = rec->socket ? json(*rec->socket) : json(nullptr);
    if (rec->client_addresses) {
      json addrs = json::array();
      for (const auto& a : *rec->client_addresses)
        addrs.push_back({{"interface", a.interface},
                         {"address", a.address},
                         {"prefix", a.prefix},
                         {"family", a.ipv6 ? "inet6" : "inet"},
                         {"cidr", address_cidr(a)}});
      h["client_addresses"] = addrs;
    } else {
      h["client_addresses"] = nullptr;  // a version-1 record does not say
    }
    ns["holder"] = h;
  } else {
    ns["holder"] = nullptr;
  }
  root["namespace"] = ns;

  // A link's addresses and a session's sockets come last in their objects:
  // they are the Report's, not the Link's or the group's own fields.
  json links = json::array();
  for (const auto& l : r.links) {
    json j = l;
    j["addresses"] = addresses_of(r, l);
    links.push_back(j);
  }
  root["interfaces"] = links;
  root["routes"] = r.routes;
  root["ceph_ports"] = r.ports;
  json sessions = json::array();
  for (const auto& g : r.sessions) {
    json j = g;
    json socks = json::array();
    for (const auto& s : g.sockets) socks.push_back(socket_json(s, kernel_flag(r, s)));
    j["sockets"] = socks;
    sessions.push_back(j);
  }
  root["ceph_sessions"] = sessions;

  json kernel = json::array();
  for (const auto& s : r.kernel_sockets()) kernel.push_back(socket_json(s, true));
  root["kernel_sockets"] = kernel;

  json counts = json::object();
  for (const char* p : {"tcp", "udp"}) counts[p] = json::object();
  for (const auto& [proto, states] : state_counts(r))
    for (const auto& [state, n] : states) counts[proto][state] = n;
  root["socket_counts"] = counts;

  if (all_sockets) {
    json all = json::array();
    for (const auto& s : r.sockets) all.push_back(socket_json(s, kernel_flag(r, s)));
    root["sockets"] = all;
  }
  return root;
}

std::string render_table(const Report& r, bool all_sockets) {
  std::string out = "Namespace\n";
  {
    TextTable t;
    const auto& id = r.identity;
    if (!id.path.empty()) t.add({"path", id.path});
    if (!id.cluster_id.empty()) t.add({"cluster", id.cluster_id});
    t.add({"netns", "inode " + std::to_string(id.netns.ino) + " (dev " +
                        std::to_string(id.netns.dev) + ")"});
    if (const auto& rec = id.record) {
      std::string holder = "pid " + std::to_string(rec->pid) + ", alive: " + yes_no(r.holder_alive);
      if (r.age_seconds)
        holder += ", published " + format_duration(std::chrono::seconds(*r.age_seconds)) + " ago";
      t.add({"holder", holder});
      t.add({"record", "version " + std::to_string(rec->version) + ", socket " +
                           (rec->socket ? *rec->socket : std::string("none"))});
      std::string fence = "not published (record version 1)";
      if (rec->client_addresses)
        fence = rec->client_addresses->empty() ? "none"
                                               : format_client_addresses(*rec->client_addresses);
      t.add({"client addresses", fence});
    } else {
      t.add({"holder", "no holder record"});
    }
    out += t.render();
  }

  out += "\nInterfaces\n";
  {
    TextTable t({"IDX", "NAME", "KIND", "STATE", "CARRIER", "MTU", "ADDRESSES"});
    for (const auto& l : r.links) {
      const std::string addrs = join(addresses_of(r, l), " ", [](const Address& a) {
        return a.addr.str() + "/" + std::to_string(a.prefix);
      });
      t.add({std::to_string(l.index), l.name, or_dash(l.kind), l.up ? "up" : "down",
             l.lower_up ? "yes" : "no", std::to_string(l.mtu), or_dash(addrs)});
    }
    out += t.render();
  }

  out += "\nRoutes\n";
  {
    TextTable t({"TABLE", "DESTINATION", "TYPE", "GATEWAY", "DEV", "SRC", "METRIC"});
    for (const auto& rt : r.routes)
      t.add({rt.table == 254 ? "main" : std::to_string(rt.table), rt.dst, rt.type,
             or_dash(rt.gateway.str()), or_dash(rt.dev), or_dash(rt.prefsrc.str()),
             std::to_string(rt.metric)});
    out += t.empty() ? "  (none)\n" : t.render();
  }

  out += "\nCeph sessions (mon " + format_port_ranges(r.ports.mon) + ", osd/mds " +
         format_port_ranges(r.ports.osd) + "; nvme/tcp " + format_port_ranges(r.ports.nvme) +
         ", nvme-discovery " + format_port_ranges(r.ports.nvme_discovery) + "; nfs " +
         format_port_ranges(r.ports.nfs) + ")\n";
  {
    TextTable t({"ROLE", "PEER", "ESTAB", "TOTAL", "KERNEL", "LOCAL"});
    for (const auto& g : r.sessions) {
      std::string locals = join(std::span(g.sockets).first(std::min<size_t>(g.sockets.size(), 3)),
                                " ", [](const InetSocket& s) { return s.local.str(); });
      if (g.sockets.size() > 3) locals += " ...";
      t.add({role_name(g.role), g.peer.str(), std::to_string(g.established),
             std::to_string(g.sockets.size()), std::to_string(g.kernel), locals});
    }
    out += t.empty() ? "  (none)\n" : t.render();
  }

  out += "\nKernel sockets (held by no process)\n";
  {
    TextTable t({"PROTO", "STATE", "LOCAL", "PEER", "INODE"});
    for (const auto& s : r.kernel_sockets())
      t.add({proto_name(s.proto), std::string(state_name(s.proto, s.state)), s.local.str(),
             s.remote.str(), std::to_string(s.inode)});
    if (!r.owners_scanned)
      out += "  (not looked up)\n";
    else
      out += t.empty() ? "  (none)\n" : t.render();
  }

  out += "\nSockets\n";
  {
    TextTable t;
    for (const auto& [proto, states] : state_counts(r)) {
      size_t total = 0;
      for (const auto& [state, n] : states) total += n;
      t.add({proto, std::to_string(total), join(states, ", ", [](const auto& state_n) {
               return state_n.first + " " + std::to_string(state_n.second);
             })});
    }
    out += t.empty() ? "  (none)\n" : t.render();
  }

  if (all_sockets) {
    TextTable t({"PROTO", "STATE", "LOCAL", "PEER", "UID", "INODE"});
    for (const auto& s : r.sockets)
      t.add({proto_name(s.proto), std::string(state_name(s.proto, s.state)), s.local.str(),
             s.remote.str(), std::to_string(s.uid), std::to_string(s.inode)});
    out += "\nAll sockets\n" + t.render();
  }
  return out;
}

}  // namespace netns::inspect
