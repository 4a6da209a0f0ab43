#include "netns_exec/shim/decision.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>

#include "netns/cluster_id.hpp"
#include "netns/join.hpp"
#include "netns_exec/ceph_csi_config.hpp"
#include "netns_exec/shim/in_place.hpp"
#include "netns_exec/shim/targets.hpp"

namespace netns::exec::shim {

namespace {

std::optional<std::string> env_value(const char* name) {
  const char* v = ::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

std::string quoted_list(const std::vector<std::string>& v) {
  return join(v, ", ", [](const std::string& s) { return quote(s); });
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A cluster that matched: its ID and, for a monitors tool, its config entry.
struct Entry {
  std::string id;
  std::vector<Server> monitors;
  std::string netns_path;  // the kind's netNamespaceFilePath ("" for none)
  size_t group = 0;        // entries sharing a monitor are one Ceph cluster
};

// config.json, first entry of each ID only (ceph-csi's lookup stops there).
std::vector<Entry> config_entries(const CephCsiConfig& decoded, ConfigKind kind) {
  std::vector<Entry> entries;
  for (const auto& c : decoded.clusters) {
    if (c.cluster_id.empty() || decoded.find(c.cluster_id) != &c) continue;
    Entry e{c.cluster_id, {}, c.netns_path(kind), entries.size()};
    for (const auto& s : c.monitors) {
      MonitorList m = parse_monitors(s);
      e.monitors.insert(e.monitors.end(), m.monitors.begin(), m.monitors.end());
    }
    entries.push_back(std::move(e));
  }
  // Groups: an entry sharing a monitor with an earlier one joins its group
  // (several IDs of one cluster: a radosNamespace or subvolumeGroup each).
  auto share = [](const Entry& a, const Entry& b) {
    for (const auto& x : a.monitors)
      for (const auto& y : b.monitors) {
        for (const auto& r : x.host.addresses)
          if (same_monitor(r, x.ports, y)) return true;
        if (!x.host.name.empty() && same_monitor(x.host.name, x.ports, y)) return true;
      }
    return false;
  };
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (share(entries[i], entries[j])) {
        const size_t from = entries[i].group, to = entries[j].group;
        for (auto& e : entries)
          if (e.group == from) e.group = to;
      }
  return entries;
}

std::vector<std::string> readings_of(const Server& s) {
  std::vector<std::string> r = s.host.addresses;
  if (!s.host.name.empty()) r.push_back(s.host.name);
  return r;
}

// Who one reading of a server belongs to: the entries it is a monitor of,
// or the declared holders that cover it most specifically.
using Owners = std::vector<std::string>;

Owners monitor_owners(const std::string& reading, const Server& s,
                      const std::vector<Entry>& entries) {
  Owners out;
  for (const auto& e : entries)
    for (const auto& m : e.monitors)
      if (same_monitor(reading, s.ports, m)) {
        out.push_back(e.id);
        break;
      }
  return out;
}

// The matching of every server a call names.
struct Match {
  std::vector<std::string> ids;        // every owner, first seen first
  std::vector<std::string> unmatched;  // servers no reading of which has an owner
  std::string ambiguous;               // why the owners cannot be one cluster ("" if they can)
};

template <typename OwnersOf, typename SameCluster>
Match match(const Named& named, OwnersOf owners_of, SameCluster same_cluster) {
  Match m;
  for (const auto& s : named.servers) {
    std::optional<Owners> first;
    for (const auto& r : readings_of(s)) {
      Owners o = owners_of(r, s);
      if (first && o != *first && m.ambiguous.empty())
        m.ambiguous = quote(s.text) + " is read differently by its consumers (" + s.host.text +
                      "), and the readings match different clusters";
      if (!first) first = std::move(o);
    }
    if (!first || first->empty()) {
      m.unmatched.push_back(s.text);
      continue;
    }
    for (const auto& id : *first) {
      if (std::find(m.ids.begin(), m.ids.end(), id) != m.ids.end()) continue;
      for (const auto& seen : m.ids)
        if (!same_cluster(seen, id) && m.ambiguous.empty())
          m.ambiguous =
              "it matches " + quote(seen) + " and " + quote(id) + ", which are not one cluster";
      m.ids.push_back(id);
    }
  }
  return m;
}

// The held holder's file in the holder directory: its socket when it
// publishes one (that works without hostPID), else its link.
void use_holder_directory(Decision& d) {
  const std::string base = d.holder_dir + "/" + d.cluster_id;
  struct stat st {};
  const bool socket = ::lstat((base + ".net.sock").c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  d.holder_path = base + (socket ? ".net.sock" : ".net.ns");
  d.source = Source::netns_path(d.holder_path);
}

// A decision under construction: the rules say what, this says it.
class Judge {
 public:
  Judge(Decision& d, const Environment& env) : d_(d), env_(env) {}

  void untouched(std::string why) {
    d_.verdict = Verdict::untouched;
    d_.why = std::move(why);
  }
  void refuse(Errc code, const std::string& what, const std::string& hint) {
    d_.verdict = Verdict::refused;
    d_.why = what;
    d_.refusal = Error(code,
                       "transparent mode: " + what + "; " +
                           quote(d_.real.path.empty() ? d_.program : d_.real.path) + " was not run",
                       hint);
  }
  // A declaration or match problem: a session-opening call is refused, any
  // other call runs untouched (it opens nothing that could hang).
  void problem(Errc code, const std::string& what, const std::string& hint) {
    if (d_.opens_session)
      refuse(code, what, hint);
    else
      untouched(what + "; the call opens no kernel session (" + d_.tool->session_calls +
                " do), so the real program runs as is");
  }
  // Rule 3b: a word of a session-opening call that no allow-list of its
  // row knows. Refused whatever it names (NETNS_EXEC_UNMATCHED does not
  // apply: the word may be the one that picks a held cluster). true: done.
  bool not_understood() {
    if (!d_.opens_session || d_.named.not_understood.empty()) return false;
    refuse(Errc::invalid_argument,
           "the call carries " + d_.named.not_understood +
               ", which transparent mode does not understand (a session-opening call is routed "
               "only when every option, CEPH_ARGS word and config key is one it knows)",
           "write the call as ceph-csi writes it, or drop the word; `netns-exec shim explain -- " +
               d_.program + " ...` shows the decision");
    return true;
  }
  // Rule 7: matches no held cluster and cannot be told for sure.
  void unmatched(const std::string& what, const std::string& hint) {
    if (!d_.opens_session) {
      untouched(what + "; the call opens no kernel session, so the real program runs as is");
      return;
    }
    if (env_.unmatched == "own-netns") {
      untouched(what + "; " + kUnmatchedVariable +
                "=own-netns: run in the caller's own namespace, where its sessions die with "
                "the plugin pod");
      d_.opted_out = true;
      return;
    }
    if (!env_.unmatched.empty() && env_.unmatched != "refuse") {
      refuse(Errc::invalid_argument,
             what + ", and environment variable " + std::string(kUnmatchedVariable) + "=" +
                 quote(env_.unmatched) + " is not one of its values (\"refuse\", \"own-netns\")",
             std::string("unset ") + kUnmatchedVariable);
      return;
    }
    refuse(Errc::not_found,
           what + " (a session-opening call: " + d_.tool->session_calls +
               "), so it could open sessions that no holder keeps",
           hint + "; to run such calls in the plugin's own namespace anyway, set " +
               kUnmatchedVariable + "=own-netns");
  }

 private:
  Decision& d_;
  const Environment& env_;
};

std::vector<std::string> held_list(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view id : split(text, ','))
    if (!trimmed(id).empty()) out.emplace_back(id);
  return out;
}

// Every held ID must be a clusterID of config.json: "" when they are, else
// the sentence saying which is not and what was probably meant.
std::string held_list_problem(const std::vector<std::string>& held,
                              const std::vector<Entry>& entries, const std::string& config) {
  for (const auto& id : held) {
    if (std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.id == id; }))
      continue;
    std::string guess;
    for (const auto& e : entries)
      if (lowered(std::string(trimmed(e.id))) == lowered(std::string(trimmed(id)))) guess = e.id;
    std::vector<std::string> ids;
    for (const auto& e : entries) ids.push_back(e.id);
    return "NETNS_EXEC_HELD_CLUSTERS names " + quote(id) + ", which is no clusterID of " +
           quote(config) +
           (guess.empty()
                ? " (it has " + (ids.empty() ? std::string("none") : quoted_list(ids)) + ")"
                : "; did you mean " + quote(guess) + "?");
  }
  return "";
}

bool is_held(const std::optional<std::vector<std::string>>& held, const std::string& id) {
  return !held || std::find(held->begin(), held->end(), id) != held->end();
}

void decide_by_monitors(Decision& d, Judge& judge, const Environment& env) {
  std::optional<std::vector<std::string>> held;
  if (env.held) held = held_list(*env.held);
  // No config and no held list: no cluster is known, so none is held (a
  // node plugin always has its config; other uses of `rbd` in the image
  // stay untouched). With the list set, a missing config is a refusal.
  struct stat cst {};
  if (!env.held && ::stat(env.config.c_str(), &cst) != 0 && errno == ENOENT)
    return judge.untouched(quote(env.config) +
                           " does not exist and NETNS_EXEC_HELD_CLUSTERS is unset: no cluster is "
                           "held, the real program runs as is");
  if (held && held->empty())
    return judge.untouched(
        "NETNS_EXEC_HELD_CLUSTERS is set and empty: no cluster is held, the "
        "real program runs as is");
  std::vector<Entry> entries;
  try {
    entries = config_entries(read_ceph_csi_config(env.config), *d.tool->kind);
  } catch (const Error& e) {
    return judge.problem(Errc::invalid_argument,
                         quote(env.config) +
                             " (ceph-csi's config.json) cannot tell whose the "
                             "monitors are: " +
                             e.describe(),
                         "is the ceph-csi-config ConfigMap mounted there, or NETNS_EXEC_CONFIG "
                         "set to it?");
  }
  if (held)
    if (std::string why = held_list_problem(*held, entries, env.config); !why.empty())
      return judge.problem(Errc::invalid_argument, why,
                           "make NETNS_EXEC_HELD_CLUSTERS (the holder chart's clusters[].id) and "
                           "ceph-csi's clusterIDs the same, character for character");
  if (judge.not_understood()) return;
  if (!d.named.unknown.empty() && !d.named.named())
    return judge.unmatched("the monitors it connects to cannot be told: " + d.named.unknown,
                           "name the monitors with -m as ceph-csi does");
  if (!d.named.named())
    return judge.untouched(
        "the command names no monitors (no cluster to route by): the real program runs as is");

  std::map<std::string, size_t> group;
  for (const auto& e : entries) group[e.id] = e.group;
  Match m = match(
      d.named, [&](const std::string& r, const Server& s) { return monitor_owners(r, s, entries); },
      [&](const std::string& a, const std::string& b) { return group[a] == group[b]; });
  if (!m.ambiguous.empty())
    return judge.problem(Errc::invalid_argument,
                         "the monitors " + quote(d.named.text) + " (" + d.named.where +
                             ") are ambiguous: " + m.ambiguous,
                         "name the monitors of one cluster, written as in " + env.config);
  // Several IDs with the same monitors are one Ceph cluster under several
  // configurations: the first held one in config order is the namespace its
  // sessions live in.
  for (const auto& e : entries)
    if (std::find(m.ids.begin(), m.ids.end(), e.id) != m.ids.end() && is_held(held, e.id)) {
      d.cluster_id = e.id;
      break;
    }
  for (const auto& id : m.ids)
    if (id != d.cluster_id) d.also.push_back(id);
  std::string leftover;
  if (!m.unmatched.empty())
    leftover = "no cluster in " + quote(env.config) + " has " + quoted_list(m.unmatched);
  if (!d.named.unknown.empty()) leftover += (leftover.empty() ? "" : "; ") + d.named.unknown;
  const std::string hint = "write the monitors as " + env.config +
                           " lists them (ceph-csi passes its \"monitors\" as they are)";

  if (d.cluster_id.empty()) {
    if (!m.ids.empty()) {  // for explain: whose they are
      d.cluster_id = m.ids.front();
      d.also.erase(d.also.begin());
    }
    if (!leftover.empty())
      return judge.unmatched("the monitors " + quote(d.named.text) + " (" + d.named.where +
                                 ") match no held cluster: " + leftover,
                             hint);
    return judge.untouched("cluster " + quoted_list(m.ids) + " (monitors " + quote(d.named.text) +
                           ") is not in NETNS_EXEC_HELD_CLUSTERS: the real program runs as is");
  }
  if (!leftover.empty() && d.opens_session)
    return judge.refuse(Errc::invalid_argument,
                        "the monitors " + quote(d.named.text) + " (" + d.named.where +
                            ") name held cluster " + quote(d.cluster_id) +
                            " and servers it cannot tell: " + leftover,
                        hint);

  d.verdict = Verdict::holder;
  std::string configured;
  for (const auto& e : entries)
    if (e.id == d.cluster_id) configured = e.netns_path;
  if (configured.find('\0') != std::string::npos)
    return judge.refuse(Errc::invalid_argument,
                        "cluster " + quote(d.cluster_id) + "'s " + config_kind_name(*d.tool->kind) +
                            " netNamespaceFilePath in " + quote(env.config) +
                            " contains a NUL byte",
                        "fix the cluster's entry in the ceph-csi-config ConfigMap");
  if (!configured.empty()) {
    d.source = Source::cluster(d.cluster_id, env.config, *d.tool->kind);
    d.holder_path = configured;
    d.why = "cluster " + quote(d.cluster_id) +
            " is held; its config entry names the holder file (" + config_kind_name(*d.tool->kind) +
            " netNamespaceFilePath)";
    return;
  }
  use_holder_directory(d);
  d.why = "cluster " + quote(d.cluster_id) + " is held (monitors " + quote(d.named.text) +
          " named by " + d.named.where + "); its holder publishes in " + quote(d.holder_dir);
}

void decide_by_targets(Decision& d, Judge& judge, const Environment& env) {
  if (!env.targets || trimmed(*env.targets).empty())
    return judge.untouched(std::string(kTargetsVariable) +
                           " declares no holder: none is held, the real program runs as is");
  std::vector<DeclaredHolder> holders;
  try {
    holders = parse_targets(*env.targets);
  } catch (const Error& e) {
    return judge.problem(Errc::invalid_argument, e.describe(),
                         "fix the holder chart's clusters[].targets");
  }
  if (judge.not_understood()) return;
  if (!d.named.named())
    return judge.unmatched(
        d.named.unknown.empty() ? "the command names no target" : d.named.unknown,
        "name the address with -a ADDR (nvme) or SERVER:/EXPORT (mount.nfs)");
  Match m = match(
      d.named, [&](const std::string& r, const Server&) { return holders_covering(holders, r); },
      [](const std::string& a, const std::string& b) { return a == b; });
  if (!m.ambiguous.empty())
    return judge.problem(Errc::invalid_argument,
                         "the target " + quote(d.named.text) + " (" + d.named.where +
                             ") is ambiguous: " + m.ambiguous,
                         "declare each address or network for one holder in " +
                             std::string(kTargetsVariable) +
                             ", and write addresses as inet_pton "
                             "reads them");
  std::string leftover;
  if (!m.unmatched.empty())
    leftover =
        "no holder in " + std::string(kTargetsVariable) + " declares " + quoted_list(m.unmatched);
  if (!d.named.unknown.empty()) leftover += (leftover.empty() ? "" : "; ") + d.named.unknown;
  const std::string hint = "declare the server in the holder chart's clusters[].targets (" +
                           std::string(kTargetsVariable) + "), written as the command names it";
  if (m.ids.empty())
    return judge.unmatched(
        "the target " + quote(d.named.text) + " (" + d.named.where + ") is not held: " + leftover,
        hint);
  d.cluster_id = m.ids.front();
  if (!leftover.empty() && d.opens_session)
    return judge.refuse(Errc::invalid_argument,
                        "the call names servers of holder " + quote(d.cluster_id) +
                            " and servers it cannot tell: " + leftover,
                        hint);
  d.verdict = Verdict::holder;
  use_holder_directory(d);
  d.why = "holder " + quote(d.cluster_id) + " serves " + quote(d.named.text) + " (named by " +
          d.named.where + "); it publishes in " + quote(d.holder_dir);
}

}  // namespace

const char* verdict_name(Verdict v) noexcept {
  switch (v) {
    case Verdict::untouched:
      return "untouched";
    case Verdict::holder:
      return "holder";
    case Verdict::refused:
      return "refused";
  }
  return "";
}

Environment Environment::from_process() {
  Environment env;
  if (auto c = env_value("NETNS_EXEC_CONFIG"); c && !c->empty()) env.config = *c;
  env.held = env_value("NETNS_EXEC_HELD_CLUSTERS");
  if (auto d = env_value("NETNS_EXEC_HOLDER_DIR"); d && !d->empty()) env.holder_dir = *d;
  env.targets = env_value(kTargetsVariable);
  env.unmatched = env_value(kUnmatchedVariable).value_or("");
  env.ceph.ceph_args = env_value("CEPH_ARGS");
  env.ceph.ceph_conf = env_value("CEPH_CONF");
  env.ceph.home = env_value("HOME").value_or("");
  if (auto real = env_value("NETNS_EXEC_REAL_PATH"); real && !real->empty())
    env.path_list = *real;
  else if (auto path = env_value("PATH"))
    env.path_list = *path;
  env.self = identity_of("/proc/self/exe");
  env.exec_mark = exec_mark_from_environment();
  env.identity = env_value("NETNS_EXEC_IDENTITY").value_or("");
  env.allow_unrecorded = env_value("NETNS_EXEC_ALLOW_UNRECORDED_NETNS").value_or("");
  env.wait_holder = env_value("NETNS_EXEC_WAIT_HOLDER").value_or("");
  return env;
}

Error Decision::unusable(Error e) const {
  e.context("transparent mode: " + std::string(tool ? tool->noun : "cluster") + " " +
            quote(cluster_id) + " (" + (named.text.empty() ? "" : quote(named.text) + ", ") +
            "named by " + (named.where.empty() ? "--cluster-id" : named.where) +
            ") is held, its holder " + quote(holder_path) + " cannot be used, and " +
            quote(real.path.empty() ? program : real.path) + " was not run");
  e.default_hint(
      "is the cluster's netns-holder pod running on this node (NETNS_EXEC_WAIT_HOLDER "
      "waits for it)? `netns-exec shim explain -- " +
      program + " ...` shows the decision");
  return e;
}

Decision decide(std::string_view invoked_as, const std::vector<std::string>& args,
                const Environment& env) {
  Decision d;
  d.program = std::string(basename_of(invoked_as));
  d.tool = tool_named(d.program);
  Judge judge(d, env);
  if (!d.tool) {
    judge.refuse(
        Errc::invalid_argument,
        quote(d.program) + " is not a program transparent mode stands in for",
        "install netns-exec as rbd, mount.ceph, nvme, mount.nfs, mount.nfs4, umount.nfs or "
        "umount.nfs4");
    return d;
  }
  d.holder_dir = env.holder_dir.value_or(d.tool->holder_dir);

  // What the call is, first (explain shows it whatever the verdict); then
  // the real program: without it nothing can run, held or not.
  d.opens_session = d.tool->opens_session(*d.tool, args);
  d.named = d.tool->names(*d.tool, args, env.ceph);
  if (!env.self) {
    judge.refuse(
        Errc::system,
        "/proc/self/exe cannot be stat'ed, so netns-exec cannot tell itself from the real " +
            d.program,
        "is /proc mounted?");
    return d;
  }
  if (is_exec_loop(d.program, env.exec_mark, *env.self)) {
    judge.refuse(Errc::invalid_argument,
                 "netns-exec runs as " + quote(d.program) + " from " + quote(env.exec_mark->path) +
                     ", which another netns-exec took for the real " + d.program +
                     ": that file is a copy of netns-exec, not the real program (each would "
                     "exec the other for ever)",
                 "remove the copy, or make it a link to the one netns-exec; put the real " +
                     d.program + " on PATH after the shim (`netns-exec shim explain -- " +
                     d.program + " ...` shows the search)");
    return d;
  }
  d.real = find_real_program(d.program, invoked_as, env.path_list, *env.self);
  if (!d.real.found()) {
    std::string why;
    for (const auto& r : d.real.reasons) why += "; " + r;
    judge.refuse(Errc::not_found,
                 "netns-exec runs as " + quote(d.program) +
                     ", and the real program is not on PATH after it" + why,
                 "install the real " + d.program +
                     " in a PATH directory after the shim's (see manifests/images)");
    return d;
  }
  if (d.tool->naming == Naming::nothing) {
    judge.untouched(
        "an unmount names no server and opens no connection the mount needs (NFSv4's is "
        "umount2(2) alone; NFSv3's UMNT call to mountd is advisory): the real program runs as is");
    return d;
  }
  if (!d.opens_session && !d.named.named()) {
    judge.untouched(std::string("the command names no server and opens no kernel session (") +
                    d.tool->session_calls + " do): the real program runs as is");
    return d;
  }
  try {
    d.options = in_place_options(env.identity, env.allow_unrecorded, env.wait_holder);
  } catch (const Error& e) {
    // The checks' opt-ins cannot be read: no holder can be entered as the
    // operator meant, so nothing is routed (a session-opening call refused).
    judge.problem(Errc::invalid_argument, e.describe(), e.hint());
    return d;
  }
  // ceph-csi with a netNamespaceFilePath still calls `nsenter --net=HOLDER --
  // rbd ...`: then this process is already in the holder's namespace, and
  // the record (required) proves that it is the holder's, not the plugin's.
  // Without a record to prove it our own namespace stays refused.
  d.options.allow_own_netns = d.options.identity == IdentityPolicy::require;
  d.options.own_netns_needs_record = true;

  if (d.tool->naming == Naming::monitors)
    decide_by_monitors(d, judge, env);
  else
    decide_by_targets(d, judge, env);
  if (d.verdict == Verdict::holder) {
    try {
      validate_cluster_id(d.cluster_id);
    } catch (const Error& e) {
      judge.refuse(Errc::invalid_argument, e.describe(), "fix the cluster ID");
    }
  }
  return d;
}

Decision decide_cluster(const std::string& id, ConfigKind kind, const std::string& config,
                        const Environment& env) {
  Decision d;
  d.program = "--cluster-id";
  d.cluster_id = id;
  d.source = Source::cluster(id, config, kind);
  d.verdict = Verdict::holder;
  d.why = "cluster " + quote(id) + ": its " + std::string(config_kind_name(kind)) +
          " netNamespaceFilePath in " + quote(config);
  if (!env.transparent()) return d;
  // Transparent mode is set up: the same declarations as the shim's.
  validate_cluster_id(id);
  const CephCsiConfig decoded = read_ceph_csi_config(config);
  const std::vector<Entry> entries = config_entries(decoded, kind);
  std::optional<std::vector<std::string>> held;
  if (env.held) held = held_list(*env.held);
  if (held)
    if (std::string why = held_list_problem(*held, entries, config); !why.empty()) {
      d.verdict = Verdict::refused;
      d.why = why;
      d.refusal = Error(Errc::invalid_argument, "transparent mode: " + why,
                        "make NETNS_EXEC_HELD_CLUSTERS (the holder chart's clusters[].id) and "
                        "ceph-csi's clusterIDs the same, character for character");
      return d;
    }
  const CephCsiCluster* entry = decoded.find(id);
  if (!entry || !entry->netns_path(kind).empty() || !is_held(held, id)) return d;
  d.holder_dir = env.holder_dir.value_or("");
  for (const Tool& t : tools())
    if (d.holder_dir.empty() && t.kind == kind) d.holder_dir = t.holder_dir;
  use_holder_directory(d);
  d.why = "cluster " + quote(id) + " is held in transparent mode (NETNS_EXEC_HELD_CLUSTERS" +
          std::string(held ? "" : " unset: every cluster of the config") +
          ") and its config entry names no holder file: its holder publishes in " +
          quote(d.holder_dir);
  return d;
}

}  // namespace netns::exec::shim
