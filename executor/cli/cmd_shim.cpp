// netns-exec shim explain [--json] -- CMD ARGS...
// Transparent mode's dry run, for the operator at 3 am: for `rbd ...`,
// `mount.ceph ...` (or `mount -t ceph ...`) as the plugin would run it,
// which real program the shim would exec and why, which monitors the
// command names, which cluster they match, whether it is held, which holder
// file would be opened, and whether that file passes the checks now (the
// same resolve() the shim makes, without waiting and without entering).
// Nothing is run. Exit 0 when the command would run (routed or untouched),
// 125 when the shim would refuse it.
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "command.hpp"
#include "netns/error.hpp"
#include "netns/fd.hpp"
#include "netns_exec/ceph/ceph.hpp"
#include "netns_exec/redact.hpp"
#include "netns_exec/shim/decision.hpp"
#include "netns_exec/shim/real_program.hpp"
#include "netns_exec/shim/targets.hpp"
#include "nsenter_mode.hpp"

namespace netns::cli {

using exec::shim::basename_of;

namespace {

// `mount -t ceph SRC DIR -o ...` is what the operator sees in ceph-csi's
// log; mount(8) turns it into `mount.TYPE SRC DIR -o ...`.
std::vector<std::string> as_mount_helper(const std::vector<std::string>& mount,
                                         const std::string& type) {
  std::vector<std::string> out{"mount." + type};
  for (size_t i = 1; i < mount.size(); ++i) {
    if (mount[i] == "-t" && i + 1 < mount.size()) {
      ++i;
      continue;
    }
    if (mount[i].rfind("-t", 0) == 0 && mount[i].size() > 2) continue;
    out.push_back(mount[i]);
  }
  return out;
}

// The file system type of `mount -t TYPE ...` ("" when none is given).
std::string mount_type(const std::vector<std::string>& mount) {
  for (size_t i = 1; i < mount.size(); ++i) {
    if (mount[i] == "-t" && i + 1 < mount.size()) return mount[i + 1];
    if (mount[i].rfind("-t", 0) == 0 && mount[i].size() > 2) return mount[i].substr(2);
  }
  return "";
}

// `nvme disconnect -d /dev/nvmeN` (or --device[=]): the device named.
std::string disconnected_device(const std::vector<std::string>& cmd) {
  if (cmd.size() < 2 || cmd[1] != "disconnect") return "";
  std::string device;
  for (size_t i = 2; i < cmd.size(); ++i) {
    if ((cmd[i] == "-d" || cmd[i] == "--device") && i + 1 < cmd.size())
      device = cmd[++i];
    else if (cmd[i].rfind("--device=", 0) == 0)
      device = cmd[i].substr(9);
  }
  return device;
}

// A disconnect's controller: the device named, and whose it is.
struct Controller {
  std::string device;
  std::string address_file;
  std::optional<std::string> traddr;      // read from address_file
  std::optional<std::string> holder;      // the one NETNS_EXEC_TARGETS holder serving traddr
  std::optional<std::string> unreadable;  // why address_file could not be read
};

void to_json(nlohmann::json& j, const Controller& c) {
  j = {{"device", c.device}, {"address_file", c.address_file}};
  if (c.traddr) j["traddr"] = *c.traddr;
  if (c.holder) j["holder"] = *c.holder;
  if (c.unreadable) j["unreadable"] = *c.unreadable;
}

// Everything explain found, gathered once: the JSON document and the text are
// both rendered from it.
struct Explanation {
  // The real program is the one of the name invoked (mount.nfs4 is mount.nfs4).
  std::string program;
  std::string command;        // redacted
  std::string invoked_as;     // the path the shim would be run as
  exec::shim::WhatRuns runs;  // the file a call really runs, and whether it is netns-exec
  exec::shim::Decision decision;
  std::optional<std::string> config;   // monitors tools: the config.json read
  std::optional<std::string> held;     // NETNS_EXEC_HELD_CLUSTERS, as set
  std::optional<std::string> targets;  // NETNS_EXEC_TARGETS, as set
  std::optional<Controller> controller;
  std::optional<std::string> holder;   // the held holder's file
  std::optional<std::string> nsname;   // the namespace that file resolves to now
  std::optional<std::string> refusal;  // why nothing would run
  std::string outcome;                 // one line: what the shim would do
  int status = 0;                      // 0, or 125 when refused

  [[nodiscard]] const exec::shim::Tool& tool() const { return *decision.tool; }
};

void to_json(nlohmann::json& j, const Explanation& e) {
  const exec::shim::Decision& d = e.decision;
  j = nlohmann::json::object();
  j["program"] = e.program;
  j["command"] = e.command;
  j["invoked_as"] = e.invoked_as;
  j["runs"] = {{"path", e.runs.path}, {"how", e.runs.how}, {"is_netns_exec", e.runs.is_netns_exec}};
  j["real"] = {{"path", d.real.path}, {"why", d.real.reasons}};
  j["holder_dir"] = d.holder_dir;
  if (e.config) {
    j["config"] = *e.config;
    j["held_clusters"] = e.held ? nlohmann::json(*e.held) : nlohmann::json("all in the config");
  }
  if (e.targets) j["targets"] = *e.targets;
  nlohmann::json named{{"named", d.named.text}, {"where", d.named.where}};
  if (!d.named.unknown.empty()) named["unknown"] = d.named.unknown;
  if (!d.named.not_understood.empty()) named["not_understood"] = d.named.not_understood;
  named["readings"] = nlohmann::json::array();
  for (const auto& s : d.named.servers)
    named["readings"].push_back({{"server", s.text}, {"read_as", s.host.text}});
  j[e.tool().named_as] = named;
  j["opens_session"] = d.opens_session;
  j["cluster"] = d.cluster_id;
  if (!d.also.empty()) j["same_monitors"] = d.also;
  j["verdict"] = exec::shim::verdict_name(d.verdict);
  j["held"] = d.verdict == exec::shim::Verdict::holder;
  j["why"] = d.why;
  if (d.opted_out) j["opted_out"] = exec::shim::kUnmatchedVariable;
  if (e.controller) j["controller"] = *e.controller;
  if (e.refusal) j["refusal"] = *e.refusal;
  if (e.holder) j["holder"] = *e.holder;
  if (e.nsname) j["namespace"] = *e.nsname;
  j["decision"] = e.outcome;
}

// The same facts for people, one "key: value" line each.
std::string render_text(const Explanation& e) {
  const exec::shim::Decision& d = e.decision;
  const exec::shim::Tool& tool = e.tool();
  std::string out;
  auto line = [&](const std::string& key, const std::string& value) {
    out += key;
    if (key.size() < 10) out.append(10 - key.size(), ' ');
    out += " " + value + "\n";
  };
  line("command:", e.command);
  line("shim:", e.invoked_as);
  line(
      "runs:",
      (e.runs.path.empty() ? std::string("(nothing)") : e.runs.path) + " (" + e.runs.how + ")" +
          (e.runs.is_netns_exec ? ": netns-exec, the shim"
                                : ": not netns-exec, so the shim is not what runs: the call runs " +
                                      (e.runs.path.empty() ? std::string("nothing") : e.runs.path) +
                                      " directly, in the caller's own namespace, whatever the "
                                      "decision below"));
  line("real:", d.real.found() ? d.real.path : "(none)");
  for (const auto& r : d.real.reasons) line("", "- " + r);
  line(std::string(tool.named_as) + ":",
       d.named.text.empty() ? "(none named)" : quote(d.named.text) + " (" + d.named.where + ")");
  for (const auto& s : d.named.servers)
    if (s.text != s.host.text) line("", "- " + quote(s.text) + " is read as " + s.host.text);
  if (!d.named.unknown.empty()) line("", "- cannot tell: " + d.named.unknown);
  if (!d.named.not_understood.empty()) line("", "- not understood: " + d.named.not_understood);
  line("session:", d.opens_session ? std::string("yes (this call opens a kernel session)")
                                   : "no (" + std::string(tool.session_calls) + " do)");
  if (!d.cluster_id.empty())
    line(std::string(tool.noun) + ":",
         quote(d.cluster_id) +
             (d.verdict == exec::shim::Verdict::holder ? " (held)" : " (not held)"));
  if (!d.also.empty()) line("", "same monitors: " + nlohmann::json(d.also).dump());
  if (e.holder && !e.holder->empty()) line("holder:", *e.holder);
  if (!d.why.empty()) line("why:", d.why);
  if (const auto& c = e.controller) {
    std::string text = c->device;
    if (c->traddr)
      text += " at traddr " + *c->traddr +
              (c->holder ? ", served by holder " + quote(*c->holder)
                         : ", no holder in NETNS_EXEC_TARGETS serves it");
    else
      text += ": " + c->unreadable.value_or("");
    line("controller:", text + " (disconnect deletes it through sysfs from any namespace)");
  }
  line("decision:", e.outcome);
  return out;
}

class ShimCommand final : public Command {
 public:
  [[nodiscard]] const char* name() const override { return "shim"; }
  [[nodiscard]] const char* description() const override {
    return "Transparent mode (netns-exec installed as rbd, mount.ceph, nvme, "
           "mount.nfs): explain a "
           "command's route";
  }

  void setup(CLI::App& app) override {
    app.require_subcommand(1);
    CLI::App* explain = app.add_subcommand(
        "explain", "Which cluster, holder and real program `CMD ARGS...` would get; runs nothing");
    explain->add_flag("--json", json_, "One JSON document on stdout");
    explain
        ->add_option("--sys-class-nvme", sys_class_nvme_,
                     "nvme disconnect: where the controller's address is read")
        ->capture_default_str();
    explain
        ->add_option("command", argv_,
                     "-- rbd|mount.ceph|nvme|mount.nfs|mount -t ceph|nfs|nfs4 ARGS...")
        ->required();
  }

  int run() override {
    const Explanation e = explain();
    if (json_) {
      std::printf("%s\n", nlohmann::json(e).dump(2).c_str());
    } else {
      const std::string text = render_text(e);
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    std::fflush(stdout);
    return e.status;
  }

 private:
  Explanation explain() const {
    std::vector<std::string> cmd = argv_;
    std::string_view invoked = basename_of(cmd.front());
    if (invoked == "mount") {
      const std::string type = mount_type(cmd);
      if (type != "ceph" && type != "nfs" && type != "nfs4")
        throw Error(Errc::invalid_argument,
                    "shim explain: only `mount -t ceph|nfs|nfs4 ...` goes through a shim (mount(8) "
                    "runs mount.TYPE for it), not " +
                        quote(type.empty() ? "no -t" : type));
      cmd = as_mount_helper(cmd, type);
      invoked = basename_of(cmd.front());
    }
    if (!exec::shim::tool_named(invoked))
      throw Error(
          Errc::invalid_argument,
          "shim explain: " + quote(invoked) + " is not a program transparent mode stands in for",
          "explain rbd, mount.ceph, nvme, mount.nfs, mount.nfs4, umount.nfs, umount.nfs4 or "
          "mount -t ceph|nfs|nfs4");

    Explanation e;
    e.program = std::string(invoked);
    const std::string& program = e.program;
    e.command = exec::redacted_command_line(argv_);
    // The search as the shim makes it when the caller runs `cmd[0]`: by
    // the path given, else by the path the caller's lookup finds (mount(8):
    // /sbin/mount.ceph; execvp, Go's LookPath: the first on PATH). A shim
    // started through the plugin image's launcher always has that path as
    // its argv[0].
    const exec::shim::Environment env = exec::shim::Environment::from_process();
    const char* path = ::getenv("PATH");
    e.runs = exec::shim::what_runs(cmd.front(), path ? path : exec::shim::kDefaultPath,
                                   exec::shim::netns_exec_identities(env.path_list));
    // Where the shim would be, were it what runs: for the decision below.
    // A file that is not netns-exec is no shim: then the decision is the one
    // a shim found by name would make (never skipping that file as itself).
    e.invoked_as = e.runs.is_netns_exec ? e.runs.path
                   : e.runs.path.empty() &&
                           (program.rfind("mount.", 0) == 0 || program.rfind("umount.", 0) == 0)
                       ? "/sbin/" + program
                       : program;

    // The shim's own decision, from the same function and environment.
    e.decision =
        exec::shim::decide(e.invoked_as, std::vector<std::string>(cmd.begin() + 1, cmd.end()), env);
    const exec::shim::Decision& d = e.decision;
    const exec::shim::Tool& tool = *d.tool;
    if (tool.naming == exec::shim::Naming::monitors) {
      e.config = env.config;
      e.held = env.held;
    }
    e.targets = env.targets;
    // A disconnect is not routed (sysfs is the same in every network
    // namespace), but the operator wants to know whose controller it is.
    if (const std::string device = disconnected_device(cmd);
        tool.naming == exec::shim::Naming::targets && !device.empty()) {
      const std::string name(basename_of(device));
      Controller c;
      c.device = device;
      c.address_file = sys_class_nvme_ + "/" + name + "/address";
      try {
        std::string address = read_file(c.address_file, 4096);
        while (!address.empty() && address.back() == '\n') address.pop_back();
        c.traddr = ceph::nvme_address_field(address, "traddr");
        if (env.targets) try {
            const auto holders = exec::shim::parse_targets(*env.targets);
            // Every reading of the address the kernel recorded, as the shim reads it.
            const exec::shim::AddressReadings r = exec::shim::read_host(*c.traddr);
            std::vector<std::string> owners;
            std::vector<std::string> read_as = r.addresses;
            if (!r.name.empty()) read_as.push_back(r.name);
            for (const auto& reading : read_as)
              for (const auto& id : exec::shim::holders_covering(holders, reading))
                if (std::find(owners.begin(), owners.end(), id) == owners.end())
                  owners.push_back(id);
            if (owners.size() == 1) c.holder = owners.front();
          } catch (const Error&) {
            // the decision above already says what is wrong with the variable
          }
      } catch (const Error& err) {
        c.unreadable = err.describe();
      }
      e.controller = std::move(c);
    }
    switch (d.verdict) {
      case exec::shim::Verdict::refused:
        e.status = kExitExecutorFailed;
        e.refusal = d.refusal->describe();
        e.outcome = "refused (125): " + d.refusal->describe();
        break;
      case exec::shim::Verdict::untouched:
        e.outcome = "run " + d.real.path + " untouched, in the caller's own namespace";
        break;
      case exec::shim::Verdict::holder: {
        e.holder = d.holder_path;
        exec::ResolveOptions options = d.options;
        options.wait_holder = {};  // now, as it stands
        try {
          exec::ResolvedNamespace ns = exec::resolve(*d.source, options);
          e.nsname = ns.describe();
          e.outcome = "run " + d.real.path + " inside " + ns.describe();
        } catch (const Error& err) {
          e.status = kExitExecutorFailed;
          const Error refused = d.unusable(err);
          e.refusal = refused.describe();
          e.outcome = "refused (125), " + d.real.path + " not run: " + refused.describe();
        }
        break;
      }
    }
    return e;
  }

  bool json_ = false;
  std::string sys_class_nvme_ = "/sys/class/nvme";
  std::vector<std::string> argv_;
};

}  // namespace

std::unique_ptr<Command> make_shim_command() { return std::make_unique<ShimCommand>(); }

}  // namespace netns::cli
