// Transparent mode fails closed, row by row: each row is a call ceph-csi, an
// operator or a typo could make (tool, argv, environment) with the decision
// it must get — the held cluster's holder, the real program untouched, or a
// refusal (125, nothing runs) — and its exit status. Every row is run twice:
//   (a) through the shim itself (a link named after the tool to netns-exec,
//       the real program a stand-in after it on PATH that records the
//       network namespace it ran in): a held call runs in its holder's
//       namespace, an untouched one in the caller's, a refused one not at
//       all, with stderr naming what was wrong;
//   (b) through `netns-exec shim explain --json` in the same environment,
//       which must tell the same verdict, cluster and exit status.
// Every address is in 198.18.0.0/15 and nothing connects anywhere: the
// stand-in only reads /proc, explain only opens the holder's file.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "exec_fixture.hpp"

namespace netns::test::exec {
namespace {

// In args and environment values: the test's temporary directory.
constexpr std::string_view kTmp = "@TMP@";
// As an environment value: the variable is removed.
constexpr const char* kUnset = "<unset>";

struct Row {
  std::string name;  // the test's name
  std::string tool;  // argv[0]'s basename
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // over the fixture's
  std::string expect;                      // "holder:ID", "untouched" or "refused"
  int status;                              // the shim's exit status (the stand-in exits 0)
  std::vector<std::string> stderr_has;     // what the shim's stderr must name
};

void PrintTo(const Row& row, std::ostream* os) {
  *os << row.tool;
  for (const auto& a : row.args) *os << " " << a;
  for (const auto& [k, v] : row.env) *os << " [" << k << "=" << v << "]";
  *os << " -> " << row.expect;
}

const std::string kTypoHeld = "NETNS_EXEC_HELD_CLUSTERS";
const std::string kUnmatched = "NETNS_EXEC_UNMATCHED";
const std::string kTargets = "NETNS_EXEC_TARGETS";

// The fixture's declarations (every row may override them):
//   config.json  ceph-a        198.18.0.1:6789, 198.18.0.2:6789
//                ceph-a-tenant 198.18.0.1:6789 (a radosNamespace of ceph-a's cluster)
//                ceph-b        [v2:198.18.1.1:3300,v1:198.18.1.1:6789]
//                ceph-c        198.18.2.1 (not held)
//   held         ceph-a,ceph-a-tenant,ceph-b
//   targets      gw-a    198.18.4.0/24, 198.18.6.2, nfs.example
//                gw-wide 198.18.0.0/16 (overlaps gw-a's)
//                gw-b    198.19.4.0/24
//                dup-1, dup-2: both 198.19.9.0/24
//   files        @TMP@/a.conf (ceph-a's mon_host), b.conf (ceph-b's),
//                open.conf (mode 0666), empty.conf (no mon_host), bad.json,
//                .ceph/other.conf (ceph-b's, for --cluster other)
//   CEPH_CONF    @TMP@/missing.conf, HOME @TMP@ (no host ceph.conf leaks in)
// 198.18.9.9 is no cluster's monitor; 198.19.7.1 no holder's target.
const std::vector<Row>& rows() {
  // One row, one or two lines: the table reads as a table.
  // clang-format off
  static const std::vector<Row> r{
      // --- rbd: every spelling Ceph's argument parsing accepts --------------
      {"rbd_map_m", "rbd",
       {"--id", "admin", "-m", "198.18.0.1:6789", "--keyfile=/k", "map", "rbd/img",
        "--device-type", "krbd"},
       {}, "holder:ceph-a", 0, {}},
      {"rbd_map_m_equals", "rbd", {"-m=198.18.0.2", "map", "rbd/img"}, {}, "holder:ceph-a", 0, {}},
      {"rbd_map_mon_host_underscore_equals", "rbd", {"--mon_host=198.18.1.1", "map", "rbd/img"},
       {}, "holder:ceph-b", 0, {}},
      {"rbd_map_mon_host_dash", "rbd", {"--mon-host", "v2:198.18.1.1:3300", "map", "rbd/img"}, {},
       "holder:ceph-b", 0, {}},
      {"rbd_map_mon_host_dash_equals_vector", "rbd",
       {"--mon-host=[v2:198.18.1.1:3300,v1:198.18.1.1:6789]", "map", "rbd/img"}, {},
       "holder:ceph-b", 0, {}},
      {"rbd_device_map", "rbd", {"-m", "198.18.1.1", "device", "map", "rbd/img"}, {},
       "holder:ceph-b", 0, {}},
      {"rbd_map_repeated_m_last_held", "rbd", {"-m", "198.18.9.9", "-m", "198.18.0.2", "map"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_repeated_m_last_unmatched", "rbd", {"-m", "198.18.0.2", "-m", "198.18.9.9", "map"},
       {}, "refused", 125, {"198.18.9.9", kUnmatched}},
      {"rbd_map_m_then_mon_host", "rbd", {"-m", "198.18.0.2", "--mon-host", "198.18.1.1", "map"},
       {}, "holder:ceph-b", 0, {}},
      {"rbd_map_mon_host_then_m", "rbd", {"--mon_host=198.18.1.1", "-m", "198.18.0.2", "map"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_ceph_args_m", "rbd", {"map", "rbd/img"},
       {{"CEPH_ARGS", "--id admin -m 198.18.1.1"}},
       "holder:ceph-b", 0, {}},
      {"rbd_map_ceph_args_wins_over_argv", "rbd", {"-m", "198.18.0.2", "map", "rbd/img"},
       {{"CEPH_ARGS", "--mon_host=198.18.1.1"}}, "holder:ceph-b", 0, {}},
      {"rbd_map_ceph_args_unmatched_wins_over_argv", "rbd", {"-m", "198.18.0.2", "map"},
       {{"CEPH_ARGS", "-m 198.18.9.9"}}, "refused", 125, {"198.18.9.9", "CEPH_ARGS"}},
      {"rbd_map_conf_file_c", "rbd", {"-c", "@TMP@/a.conf", "map", "rbd/img"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_conf_file_long_equals", "rbd", {"--conf=@TMP@/b.conf", "map", "rbd/img"}, {},
       "holder:ceph-b", 0, {}},
      {"rbd_map_ceph_conf", "rbd", {"map", "rbd/img"}, {{"CEPH_CONF", "@TMP@/a.conf"}},
       "holder:ceph-a", 0, {}},
      {"rbd_map_m_wins_over_conf_file", "rbd", {"-c", "@TMP@/a.conf", "-m", "198.18.1.1", "map"},
       {}, "holder:ceph-b", 0, {}},
      {"rbd_map_conf_file_untrusted", "rbd", {"-c", "@TMP@/open.conf", "map", "rbd/img"}, {},
       "refused", 125, {"@TMP@/open.conf"}},
      {"rbd_map_conf_file_without_mon_host", "rbd", {"-c", "@TMP@/empty.conf", "map"}, {},
       "refused", 125, {"@TMP@/empty.conf", "mon_host"}},
      {"rbd_map_no_monitors_no_conf", "rbd", {"--id", "admin", "map", "rbd/img"}, {}, "refused",
       125, {"@TMP@/missing.conf", kUnmatched}},
      // rbd 16.2 rejects -mVALUE ("unrecognised option"): not understood.
      {"rbd_map_glued_m_not_understood", "rbd", {"-m198.18.0.1", "map"},
       {{"CEPH_CONF", "@TMP@/a.conf"}}, "refused", 125, {"\"-m198.18.0.1\"", "does not understand"}},
      {"rbd_map_ceph_args_conf_file", "rbd", {"map", "rbd/img"},
       {{"CEPH_ARGS", "--conf @TMP@/b.conf"}}, "holder:ceph-b", 0, {}},
      {"rbd_map_cluster_name_home_conf", "rbd", {"--cluster", "other", "map", "rbd/img"},
       {{"CEPH_CONF", kUnset}}, "holder:ceph-b", 0, {}},
      // --- rbd: Ceph's order, monmap > mon_host_override > mon_host ----------
      {"rbd_map_override_wins_over_m", "rbd",
       {"-m", "198.18.9.9", "--mon-host-override", "198.18.0.2", "map", "rbd/img"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_unheld_override_wins_over_held_m", "rbd",
       {"-m", "198.18.0.2", "--mon_host_override=198.18.9.9", "map"}, {}, "refused", 125,
       {"198.18.9.9", "--mon_host_override"}},
      {"rbd_map_ceph_args_override", "rbd", {"-m", "198.18.9.9", "map"},
       {{"CEPH_ARGS", "--mon-host-override 198.18.1.1"}}, "holder:ceph-b", 0, {}},
      {"rbd_map_conf_file_override_wins_over_m", "rbd",
       {"-c", "@TMP@/override.conf", "-m", "198.18.9.9", "map"}, {}, "holder:ceph-b", 0, {}},
      {"rbd_map_ceph_conf_override_wins_over_m", "rbd", {"-m", "198.18.0.2", "map"},
       {{"CEPH_CONF", "@TMP@/override.conf"}}, "holder:ceph-b", 0, {}},
      {"rbd_map_monmap", "rbd", {"--monmap", "@TMP@/monmap", "-m", "198.18.0.2", "map"}, {},
       "refused", 125, {"monmap", "does not understand"}},
      {"rbd_map_monmap_short", "rbd", {"-M", "@TMP@/monmap", "-m", "198.18.0.2", "map"}, {},
       "refused", 125, {"monmap"}},
      // --- rbd: what the allow-lists do not know -----------------------------
      {"rbd_map_unknown_option", "rbd", {"-m", "198.18.0.2", "--bogus", "map"}, {}, "refused",
       125, {"\"--bogus\"", "the command line"}},
      {"rbd_map_abbreviation", "rbd", {"--mon-h", "198.18.0.2", "map"}, {}, "refused", 125,
       {"\"--mon-h\""}},
      {"rbd_map_unknown_ceph_args_word", "rbd", {"-m", "198.18.0.2", "map"},
       {{"CEPH_ARGS", "--mon-host-overide 198.18.9.9"}}, "refused", 125,
       {"\"--mon-host-overide\" (CEPH_ARGS)"}},
      {"rbd_map_unknown_conf_key", "rbd", {"-c", "@TMP@/typo.conf", "map"}, {}, "refused", 125,
       {"\"mon_host_overide\"", "@TMP@/typo.conf [client]"}},
      {"rbd_map_unknown_option_despite_opt_out", "rbd", {"-m", "198.18.9.9", "--bogus", "map"},
       {{kUnmatched, "own-netns"}}, "refused", 125, {"\"--bogus\""}},
      {"rbd_map_nbd_unknown_map_option", "rbd",
       {"-m", "198.18.0.2", "-t", "nbd", "-o", "mon_host=198.18.9.9", "map"}, {}, "refused", 125,
       {"mon_host=198.18.9.9"}},
      {"rbd_ls_unknown_option", "rbd", {"-m", "198.18.9.9", "--bogus", "ls"}, {}, "untouched", 0,
       {}},
      // --- rbd: monitors written as the config does not write them ----------
      {"rbd_map_monitor_leading_zero", "rbd", {"-m", "198.18.0.02", "map"}, {}, "holder:ceph-a", 0,
       {}},
      {"rbd_map_monitor_ipv4_mapped", "rbd", {"-m", "[::ffff:198.18.0.2]:6789", "map"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_monitor_v1_nonce", "rbd", {"-m", "v1:198.18.0.2:6789/0", "map"}, {},
       "holder:ceph-a", 0, {}},
      {"rbd_map_monitor_other_port", "rbd", {"-m", "198.18.0.2:3300", "map"}, {}, "refused", 125,
       {"198.18.0.2:3300"}},
      {"rbd_map_monitor_empty", "rbd", {"-m", "", "map"}, {}, "refused", 125, {"-m"}},
      // --- rbd: monitors that match no held cluster, or two -----------------
      {"rbd_map_unmatched", "rbd", {"-m", "198.18.9.9:6789", "map", "rbd/img"}, {}, "refused", 125,
       {"198.18.9.9:6789", "NETNS_EXEC_UNMATCHED=own-netns"}},
      {"rbd_ls_unmatched", "rbd", {"-m", "198.18.9.9:6789", "ls"}, {}, "untouched", 0, {}},
      {"rbd_map_unmatched_opted_out", "rbd", {"-m", "198.18.9.9", "map", "rbd/img"},
       {{kUnmatched, "own-netns"}}, "untouched", 0, {"warning", "own-netns"}},
      {"rbd_map_unmatched_bogus_opt_out", "rbd", {"-m", "198.18.9.9", "map", "rbd/img"},
       {{kUnmatched, "bogus"}}, "refused", 125, {kUnmatched, "bogus"}},
      {"rbd_map_held_despite_opt_out", "rbd", {"-m", "198.18.0.2", "map", "rbd/img"},
       {{kUnmatched, "own-netns"}}, "holder:ceph-a", 0, {}},
      {"rbd_map_two_clusters", "rbd", {"-m", "198.18.0.2,198.18.1.1", "map", "rbd/img"}, {},
       "refused", 125, {"ambiguous", "\"ceph-b\""}},
      {"rbd_ls_two_clusters", "rbd", {"-m", "198.18.0.2,198.18.1.1", "ls"}, {}, "untouched", 0, {}},
      {"rbd_map_held_and_unknown_monitors", "rbd", {"-m", "198.18.0.2,198.18.9.9", "map"}, {},
       "refused", 125, {"198.18.9.9"}},
      {"rbd_map_shared_monitors_first_held", "rbd", {"-m", "198.18.0.1:6789", "map", "rbd/img"},
       {{kTypoHeld, "ceph-a-tenant,ceph-b"}}, "holder:ceph-a-tenant", 0, {}},
      {"rbd_map_unheld_cluster", "rbd", {"-m", "198.18.2.1", "map", "rbd/img"}, {}, "untouched", 0,
       {}},
      {"rbd_map_held_list_empty", "rbd", {"-m", "198.18.0.2", "map"}, {{kTypoHeld, ""}},
       "untouched", 0, {}},
      // --- rbd: a held list that does not match config.json -----------------
      {"rbd_map_held_typo_case", "rbd", {"-m", "198.18.0.2", "map", "rbd/img"},
       {{kTypoHeld, "Ceph-A,ceph-b"}}, "refused", 125, {kTypoHeld, "did you mean \"ceph-a\"?"}},
      {"rbd_map_held_typo_blank", "rbd", {"-m", "198.18.0.2", "map", "rbd/img"},
       {{kTypoHeld, " ceph-a"}}, "refused", 125, {"\" ceph-a\"", "did you mean \"ceph-a\"?"}},
      {"rbd_map_held_typo_refuses_every_cluster", "rbd", {"-m", "198.18.1.1", "map"},
       {{kTypoHeld, "Ceph-A,ceph-b"}}, "refused", 125, {"did you mean \"ceph-a\"?"}},
      {"rbd_map_held_unknown_id", "rbd", {"-m", "198.18.0.2", "map"}, {{kTypoHeld, "ceph-z"}},
       "refused", 125, {"\"ceph-z\""}},
      {"rbd_unmap_held_typo", "rbd", {"unmap", "/dev/rbd0"}, {{kTypoHeld, "Ceph-A"}}, "untouched",
       0, {}},
      {"rbd_ls_held_typo", "rbd", {"-m", "198.18.0.2", "ls"}, {{kTypoHeld, "Ceph-A"}}, "untouched",
       0, {}},
      // --- rbd: a config that cannot be read --------------------------------
      {"rbd_map_config_not_json", "rbd", {"-m", "198.18.0.2", "map"},
       {{"NETNS_EXEC_CONFIG", "@TMP@/bad.json"}}, "refused", 125, {"@TMP@/bad.json"}},
      {"rbd_map_config_missing_held_set", "rbd", {"-m", "198.18.0.2", "map"},
       {{"NETNS_EXEC_CONFIG", "@TMP@/missing.json"}}, "refused", 125, {"@TMP@/missing.json"}},
      {"rbd_map_config_missing_nothing_declared", "rbd", {"-m", "198.18.0.2", "map"},
       {{"NETNS_EXEC_CONFIG", "@TMP@/missing.json"}, {kTypoHeld, kUnset}}, "untouched", 0, {}},
      // --- rbd: calls that open no session, whatever is broken --------------
      {"rbd_version_config_not_json", "rbd", {"--version"},
       {{"NETNS_EXEC_CONFIG", "@TMP@/bad.json"}}, "untouched", 0, {}},
      {"rbd_help_config_not_json", "rbd", {"help", "map"},
       {{"NETNS_EXEC_CONFIG", "@TMP@/bad.json"}},
       "untouched", 0, {}},
      {"rbd_unmap", "rbd", {"unmap", "/dev/rbd0", "--device-type", "krbd"}, {}, "untouched", 0, {}},
      {"rbd_device_list", "rbd", {"device", "list"}, {}, "untouched", 0, {}},
      {"rbd_showmapped_untrusted_conf", "rbd", {"-c", "@TMP@/open.conf", "showmapped"}, {},
       "untouched", 0, {}},
      {"rbd_map_help", "rbd", {"map", "--help"}, {}, "untouched", 0, {}},
      // Names a held cluster, opens no session: still its holder's.
      {"rbd_version_naming_held_cluster", "rbd", {"-m", "198.18.0.2", "--version"}, {},
       "holder:ceph-a", 0, {}},

      // --- mount.ceph -------------------------------------------------------
      {"mount_ceph_old_syntax", "mount.ceph",
       {"198.18.0.1:6789,198.18.0.2:6789:/volumes/csi", "/mnt/x", "-o",
        "name=admin,secretfile=/s,mds_namespace=fs"},
       {}, "holder:ceph-a", 0, {}},
      {"mount_ceph_mon_addr", "mount.ceph",
       {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin,mon_addr=198.18.1.1:3300/198.18.1.1"},
       {}, "holder:ceph-b", 0, {}},
      {"mount_ceph_mon_host_option_not_understood", "mount.ceph",
       {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "mon_host=198.18.0.1,198.18.0.2,name=admin"}, {},
       "refused", 125, {"\"mon_host=198.18.0.1\" (-o)"}},
      {"mount_ceph_last_o_counts", "mount.ceph",
       {"198.18.0.2:/", "/mnt/x", "-o", "mon_addr=198.18.1.1", "-o", "name=admin"}, {},
       "holder:ceph-a", 0, {}},
      {"mount_ceph_ceph_args_override", "mount.ceph", {"198.18.2.1:/", "/mnt/x"},
       {{"CEPH_ARGS", "--mon-host-override 198.18.0.2"}}, "refused", 125, {"ambiguous"}},
      {"mount_ceph_conf_override", "mount.ceph",
       {"198.18.2.1:/", "/mnt/x", "-o", "name=admin,conf=@TMP@/override.conf"}, {}, "refused",
       125, {"ambiguous"}},
      {"mount_ceph_ceph_args_monitors", "mount.ceph", {":/", "/mnt/x", "-o", "name=admin"},
       {{"CEPH_ARGS", "-m 198.18.1.1"}}, "holder:ceph-b", 0, {}},
      {"mount_ceph_unknown_key", "mount.ceph", {"198.18.0.2:/", "/mnt/x", "-o", "name=a,bogus=1"},
       {}, "refused", 125, {"\"bogus=1\" (-o)"}},
      {"mount_ceph_abbreviated_key", "mount.ceph",
       {":/", "/mnt/x", "-o", "name=a,mon_add=198.18.0.2"}, {}, "refused", 125,
       {"\"mon_add=198.18.0.2\""}},
      {"mount_ceph_unknown_option", "mount.ceph", {"198.18.0.2:/", "/mnt/x", "--bogus"}, {},
       "refused", 125, {"\"--bogus\""}},
      {"mount_ceph_unknown_conf_key", "mount.ceph",
       {"198.18.0.2:/", "/mnt/x", "-o", "name=admin,conf=@TMP@/typo.conf"}, {}, "refused", 125,
       {"mon_host_overide"}},
      {"mount_ceph_unknown_ceph_args_word", "mount.ceph", {"198.18.0.2:/", "/mnt/x"},
       {{"CEPH_ARGS", "--mon-hots 198.18.9.9"}}, "refused", 125, {"(CEPH_ARGS)"}},
      {"mount_ceph_conf_option", "mount.ceph",
       {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin,conf=@TMP@/a.conf"}, {},
       "holder:ceph-a", 0, {}},
      {"mount_ceph_no_monitors", "mount.ceph",
       {"admin@4a1f.cephfs=/", "/mnt/x", "-o", "name=admin"}, {}, "refused", 125,
       {"@TMP@/missing.conf"}},
      {"mount_ceph_unmatched", "mount.ceph", {"198.18.9.9:/", "/mnt/x"}, {}, "refused", 125,
       {"198.18.9.9"}},
      {"mount_ceph_two_clusters", "mount.ceph",
       {"198.18.0.2:/", "/mnt/x", "-o", "mon_addr=198.18.1.1"},
       {}, "refused", 125, {"ambiguous"}},
      {"mount_ceph_held_and_unknown", "mount.ceph",
       {"198.18.0.2:/", "/mnt/x", "-o", "mon_addr=198.18.9.9"}, {}, "refused", 125,
       {"198.18.9.9"}},
      {"mount_ceph_unheld_cluster", "mount.ceph", {"198.18.2.1:/", "/mnt/x"}, {}, "untouched", 0,
       {}},
      {"mount_ceph_version", "mount.ceph", {"-V"}, {}, "untouched", 0, {}},

      // --- nvme -------------------------------------------------------------
      {"nvme_connect_a", "nvme",
       {"connect", "-t", "tcp", "-n", "nqn.x", "-a", "198.18.4.10", "-s", "4420", "-l", "1800"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_traddr_equals", "nvme",
       {"connect", "--transport=tcp", "--nqn=nqn.x", "--traddr=198.18.4.11", "--trsvcid=4420"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_traddr_prefix", "nvme", {"connect", "-n", "nqn.x", "--trad=198.18.4.12"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_leading_dashes", "nvme", {"--connect", "-a", "198.18.4.10"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_leading_dashes_undeclared", "nvme", {"--connect", "-a", "198.19.7.1"}, {},
       "refused", 125, {"198.19.7.1"}},
      {"nvme_connect_all_abbreviation", "nvme", {"connect-a", "-a", "198.19.7.1"}, {}, "refused",
       125, {"\"connect-a\"", "abbreviation"}},
      {"nvme_discover_abbreviation", "nvme", {"discov", "-a", "198.18.4.10"}, {}, "refused", 125,
       {"\"discov\""}},
      {"nvme_connect_unknown_option", "nvme", {"connect", "--bogus", "-a", "198.18.4.10"}, {},
       "refused", 125, {"\"--bogus\""}},
      {"nvme_connect_long_only_traddr_last", "nvme",
       {"connect", "-a", "198.18.4.10", "-traddr", "198.19.7.1"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"nvme_connect_ambiguous_option", "nvme", {"connect", "--tr", "tcp", "-a", "198.18.4.10"},
       {}, "refused", 125, {"ambiguous"}},
      {"nvme_connect_a_glued", "nvme", {"connect", "-n", "nqn.x", "-a198.18.4.13"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_discover_traddr", "nvme",
       {"discover", "-t", "tcp", "--traddr", "198.19.4.5", "-s", "8009"},
       {}, "holder:gw-b", 0, {}},
      {"nvme_connect_last_a_wins", "nvme", {"connect", "-a", "198.19.7.1", "-a", "198.18.4.10"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_last_a_wins_undeclared", "nvme",
       {"connect", "-a", "198.18.4.10", "-a", "198.19.7.1"}, {}, "refused", 125, {"198.19.7.1"}},
      {"nvme_connect_traddr_after_a_wins", "nvme",
       {"connect", "-a", "198.18.4.10", "--traddr=198.19.7.1"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"nvme_connect_leading_zeros_one_holder", "nvme", {"connect", "-a", "198.18.4.020"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_leading_zeros_two_holders", "nvme", {"connect", "-a", "198.18.4.020"},
       {{kTargets, "gw-a=198.18.4.20;gw-wide=198.18.0.0/16"}}, "refused", 125,
       {"198.18.4.16", "198.18.4.20"}},
      {"nvme_connect_ipv4_mapped", "nvme", {"connect", "-a", "::ffff:198.18.4.10"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_ipv4_mapped_brackets", "nvme", {"connect", "-a", "[::ffff:198.18.4.10]"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_zone_id", "nvme", {"connect", "-a", "::ffff:198.18.4.10%lo"}, {},
       "holder:gw-a", 0, {}},
      {"nvme_connect_most_specific", "nvme", {"connect", "-a", "198.18.4.99"}, {}, "holder:gw-a", 0,
       {}},
      {"nvme_connect_wider_network", "nvme", {"connect", "-a", "198.18.5.1"}, {}, "holder:gw-wide",
       0, {}},
      {"nvme_connect_same_prefix_two_holders", "nvme", {"connect", "-a", "198.19.9.1"}, {},
       "refused", 125, {"ambiguous", "\"dup-1\"", "\"dup-2\""}},
      {"nvme_connect_undeclared", "nvme", {"connect", "-t", "tcp", "-a", "198.19.7.1"}, {},
       "refused", 125, {"198.19.7.1", kTargets}},
      {"nvme_connect_undeclared_opted_out", "nvme", {"connect", "-a", "198.19.7.1"},
       {{kUnmatched, "own-netns"}}, "untouched", 0, {"warning"}},
      {"nvme_connect_no_address", "nvme", {"connect", "-t", "tcp", "-n", "nqn.x"}, {}, "refused",
       125, {"discovery.conf"}},
      {"nvme_connect_all_no_address", "nvme", {"connect-all"}, {}, "refused", 125,
       {"discovery.conf"}},
      {"nvme_disconnect", "nvme", {"disconnect", "-d", "/dev/nvme0"}, {}, "untouched", 0, {}},
      {"nvme_list_subsys", "nvme", {"list-subsys", "-o", "json"}, {}, "untouched", 0, {}},
      {"nvme_connect_help", "nvme", {"connect", "--help"}, {}, "untouched", 0, {}},
      {"nvme_connect_targets_malformed", "nvme", {"connect", "-a", "198.18.4.10"},
       {{kTargets, "gw-a=198.18.4.0/33"}}, "refused", 125, {kTargets, "198.18.4.0/33"}},
      {"nvme_connect_targets_leading_zero_declared", "nvme", {"connect", "-a", "198.18.4.10"},
       {{kTargets, "gw-a=198.18.4.010"}}, "refused", 125, {kTargets, "198.18.4.010"}},
      {"nvme_disconnect_targets_malformed", "nvme", {"disconnect", "-d", "/dev/nvme0"},
       {{kTargets, "gw-a=198.18.4.0/33"}}, "untouched", 0, {}},
      {"nvme_list_subsys_targets_malformed", "nvme", {"list-subsys"}, {{kTargets, "gw-a"}},
       "untouched", 0, {}},
      {"nvme_connect_nothing_declared", "nvme", {"connect", "-a", "198.18.4.10"},
       {{kTargets, kUnset}}, "untouched", 0, {}},

      // --- mount.nfs, mount.nfs4, umount.nfs --------------------------------
      {"nfs_held_address", "mount.nfs",
       {"198.18.6.2:/export/vol1", "/mnt/vol1", "-o", "vers=4.1,proto=tcp"}, {}, "holder:gw-a", 0,
       {}},
      {"nfs_held_network", "mount.nfs", {"198.18.4.20:/", "/mnt/vol2"}, {}, "holder:gw-a", 0, {}},
      {"nfs_wider_network", "mount.nfs", {"198.18.7.7:/e", "/mnt/x"}, {}, "holder:gw-wide", 0, {}},
      {"nfs_undeclared", "mount.nfs", {"198.19.7.1:/export", "/mnt/x"}, {}, "refused", 125,
       {"198.19.7.1", kTargets}},
      {"nfs_name_declared", "mount.nfs", {"NFS.Example.:/export", "/mnt/x"}, {}, "holder:gw-a", 0,
       {}},
      {"nfs_name_undeclared", "mount.nfs", {"other.example:/export", "/mnt/x"}, {}, "refused", 125,
       {"other.example"}},
      {"nfs_addr_option_agrees", "mount.nfs",
       {"nfs.example:/e", "/mnt/x", "-o", "vers=4.2,addr=198.18.6.2"}, {}, "holder:gw-a", 0, {}},
      {"nfs_addr_option_undeclared", "mount.nfs",
       {"nfs.example:/e", "/mnt/x", "-o", "vers=4.2,addr=198.19.7.1"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"nfs_mountaddr_undeclared", "mount.nfs",
       {"198.18.6.2:/e", "/mnt/x", "-o", "vers=3,mountaddr=198.19.7.1"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"nfs_name_declared_opted_out_stays_held", "mount.nfs", {"nfs.example:/e", "/mnt/x"},
       {{kUnmatched, "own-netns"}}, "holder:gw-a", 0, {}},
      {"nfs_ipv4_mapped_brackets", "mount.nfs", {"[::ffff:198.18.6.2]:/e", "/mnt/x"}, {},
       "holder:gw-a", 0, {}},
      {"nfs_leading_zeros_two_holders", "mount.nfs", {"198.18.4.020:/e", "/mnt/x"},
       {{kTargets, "gw-a=198.18.4.20;gw-wide=198.18.0.0/16"}}, "refused", 125, {"198.18.4.020"}},
      {"nfs_short_form", "mount.nfs", {"198.18.1036:/e", "/mnt/x"}, {}, "holder:gw-a", 0, {}},
      {"nfs_targets_malformed", "mount.nfs", {"198.18.6.2:/e", "/mnt/x"}, {{kTargets, "gw-a"}},
       "refused", 125, {kTargets}},
      {"nfs_mounthost_undeclared", "mount.nfs",
       {"198.18.6.2:/e", "/mnt/x", "-o", "vers=3,mounthost=198.19.7.1"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"nfs_unknown_key", "mount.nfs", {"198.18.6.2:/e", "/mnt/x", "-o", "vers=4,adr=198.19.7.1"},
       {}, "refused", 125, {"\"adr=198.19.7.1\""}},
      {"nfs_abbreviated_key", "mount.nfs", {"198.18.6.2:/e", "/mnt/x", "-o", "mountadd=198.19.7.1"},
       {}, "refused", 125, {"\"mountadd=198.19.7.1\""}},
      {"nfs_unknown_option", "mount.nfs", {"198.18.6.2:/e", "/mnt/x", "--bogus"}, {}, "refused",
       125, {"\"--bogus\""}},
      {"nfs_version", "mount.nfs", {"-V"}, {}, "untouched", 0, {}},
      {"nfs4_held", "mount.nfs4", {"198.18.4.21:/", "/mnt/v", "-s", "-o", "rw"}, {}, "holder:gw-a",
       0, {}},
      {"nfs4_undeclared", "mount.nfs4", {"198.19.7.1:/", "/mnt/v"}, {}, "refused", 125,
       {"198.19.7.1"}},
      {"umount_nfs", "umount.nfs", {"/mnt/vol1", "-t", "nfs"}, {}, "untouched", 0, {}},
      {"umount_nfs4", "umount.nfs4", {"/mnt/vol2", "-f"}, {}, "untouched", 0, {}},
      {"umount_nfs_targets_malformed", "umount.nfs", {"/mnt/vol1"}, {{kTargets, "gw-a"}},
       "untouched", 0, {}},
  };
  // clang-format on
  return r;
}

// test/fixtures/shim/corpus.txt: the calls ceph-csi, Rook and an operator
// make, each a row of its own (tool | verdict | env | argv | source).
std::vector<Row> corpus() {
  std::vector<Row> out;
  std::ifstream in(NETNS_SOURCE_DIR "/test/fixtures/shim/corpus.txt");
  std::string line;
  auto field = [](std::string_view f) {
    while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
    while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
    return std::string(f);
  };
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> f;
    for (size_t start = 0;;) {
      const size_t bar = line.find(" | ", start);
      f.push_back(field(std::string_view(line).substr(start, bar - start)));
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    Row row{"corpus_" + std::to_string(out.size() + 1), "", {}, {}, "", 0, {}};
    if (f.size() != 5) {
      row.expect = "malformed: " + line;
      out.push_back(row);
      continue;
    }
    row.tool = f[0];
    std::string tool = f[0];
    for (char& c : tool)
      if (c == '.') c = '_';
    row.name += "_" + tool;
    row.expect = f[1];
    row.status = f[1] == "refused" ? 125 : 0;
    if (f[2] != "-")
      for (size_t start = 0; start <= f[2].size();) {
        size_t semi = f[2].find(';', start);
        if (semi == std::string::npos) semi = f[2].size();
        const std::string kv = f[2].substr(start, semi - start);
        row.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
        start = semi + 1;
      }
    for (size_t start = 0; start < f[3].size();) {
      size_t blank = f[3].find(' ', start);
      if (blank == std::string::npos) blank = f[3].size();
      if (blank > start) row.args.push_back(f[3].substr(start, blank - start));
      start = blank + 1;
    }
    out.push_back(row);
  }
  return out;
}

std::vector<Row> every_row() {
  std::vector<Row> all = rows();
  for (Row& r : corpus()) all.push_back(std::move(r));
  return all;
}

std::string replaced(std::string s, const std::string& tmp) {
  for (size_t at = s.find(kTmp); at != std::string::npos; at = s.find(kTmp, at + tmp.size()))
    s.replace(at, kTmp.size(), tmp);
  return s;
}

struct ShimDecisionTable : HeldExecFixture, ::testing::WithParamInterface<Row> {
  void SetUp() override {
    HeldExecFixture::SetUp();  // ceph-a's holder
    if (IsSkipped() || HasFatalFailure()) return;
    namespaces["ceph-a"] = ns->ns_id();
    for (const char* id : {"ceph-a-tenant", "ceph-b", "gw-a", "gw-wide", "gw-b"}) {
      auto& child = others.emplace_back(std::make_unique<NetnsChild>());
      publish_holder(holder_dir, id, *child);
      namespaces[id] = child->ns_id();
    }
    bin = tmp.subdir("bin");
    real = tmp.subdir("real");
    record = tmp / "record";
    for (const char* name :
         {"rbd", "mount.ceph", "nvme", "mount.nfs", "mount.nfs4", "umount.nfs", "umount.nfs4"}) {
      ASSERT_EQ(::symlink(NETNS_EXEC_BIN, (bin + "/" + name).c_str()), 0);
      write_script(real + "/" + name, "readlink /proc/self/ns/net > \"$STANDIN_RECORD\"\nexit 0");
    }
    const std::string cfg = config(R"([
      {"clusterID": "ceph-a", "monitors": ["198.18.0.1:6789", "198.18.0.2:6789"]},
      {"clusterID": "ceph-a-tenant", "monitors": ["198.18.0.1:6789"]},
      {"clusterID": "ceph-b", "monitors": ["[v2:198.18.1.1:3300,v1:198.18.1.1:6789]"]},
      {"clusterID": "ceph-c", "monitors": ["198.18.2.1"]}
    ])");
    file("a.conf", "[global]\n\tfsid = 4a1f\n\tmon host = 198.18.0.2:6789  # ceph-a\n");
    file("b.conf", "[global]\nmon_host = [v2:198.18.1.1:3300,v1:198.18.1.1:6789]\n");
    file("open.conf", "[global]\nmon_host = 198.18.0.2\n", 0666);
    file("empty.conf", "[global]\nfsid = 4a1f\n");
    file("bad.json", "{not json");
    file("override.conf",
         "[global]\nmon_host = 198.18.9.9\n[client]\nmon_host_override = 198.18.1.1\n");
    file("typo.conf", "[global]\nmon_host = 198.18.0.2\n[client]\nmon_host_overide = 198.18.9.9\n");
    file("monmap", "not a monmap");
    // ceph-csi's own ceph.conf (internal/util/cephconf.go) and Rook's
    // toolbox's (images/ceph/toolbox.sh), for the corpus.
    file("csi.conf",
         "[global]\nauth_cluster_required = cephx\nauth_service_required = cephx\n"
         "auth_client_required = cephx\n");
    file("rook.conf",
         "[global]\nmon_host = 198.18.0.1:6789,198.18.0.2:6789\n\n[client.admin]\n"
         "keyring = /etc/ceph/keyring\n");
    ASSERT_EQ(::mkdir((tmp / ".ceph").c_str(), 0755), 0);
    file(".ceph/other.conf", "[client]\nmon_host = v2:198.18.1.1:3300\n");
    env = {{"PATH", bin + ":" + real + ":/usr/bin:/bin"},
           {"STANDIN_RECORD", record},
           {"HOME", tmp.path()},
           {"CEPH_CONF", tmp / "missing.conf"},
           {"NETNS_EXEC_CONFIG", cfg},
           {"NETNS_EXEC_HOLDER_DIR", holder_dir},
           {"NETNS_EXEC_HELD_CLUSTERS", "ceph-a,ceph-a-tenant,ceph-b"},
           {"NETNS_EXEC_TARGETS",
            "gw-a=198.18.4.0/24,198.18.6.2,nfs.example; gw-wide=198.18.0.0/16; "
            "gw-b=198.19.4.0/24; dup-1=198.19.9.0/24; dup-2=198.19.9.0/24"}};
    for (const auto& [k, v] : GetParam().env) {
      if (v == kUnset)
        env.erase(k);
      else
        env[k] = replaced(v, tmp.path());
    }
  }
  void file(const std::string& name, const std::string& content, mode_t mode = 0644) const {
    const std::string path = tmp / name;
    const std::string dir = path.substr(0, path.rfind('/'));
    UniqueFd d = open_fd(dir, O_RDONLY | O_DIRECTORY);
    write_file_atomic(d.get(), path.substr(dir.size() + 1), content, mode, dir);
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  }
  [[nodiscard]] std::vector<std::string> args() const {
    std::vector<std::string> out;
    for (const auto& a : GetParam().args) out.push_back(replaced(a, tmp.path()));
    return out;
  }
  [[nodiscard]] RunOptions options() const {
    RunOptions o;
    o.env = env;
    return o;
  }

  std::map<std::string, NsId> namespaces;
  std::vector<std::unique_ptr<NetnsChild>> others;
  std::string bin, real, record;
  std::map<std::string, std::string> env;
};

TEST_P(ShimDecisionTable, TheShimAndExplainTakeTheRowsDecision) {
  const Row& row = GetParam();
  const std::string expect = row.expect.substr(0, row.expect.find(':'));
  const std::string id =
      expect == "holder" ? row.expect.substr(row.expect.find(':') + 1) : std::string();
  ASSERT_TRUE(expect == "holder" || expect == "untouched" || expect == "refused") << row.expect;
  ASSERT_EQ(row.status, expect == "refused" ? 125 : 0) << "the stand-in exits 0";
  if (!id.empty()) {
    ASSERT_TRUE(namespaces.count(id)) << "no holder for " << id;
  }
  const std::string tool = bin + "/" + row.tool;

  // (a) The shim.
  std::vector<std::string> argv{tool};
  for (const auto& a : args()) argv.push_back(a);
  RunResult r = run_command(argv, options());
  ASSERT_FALSE(r.signaled || r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, row.status) << r.describe();
  EXPECT_EQ(r.out, "");
  std::string ran = read_text(record);
  while (!ran.empty() && ran.back() == '\n') ran.pop_back();
  if (expect == "refused") {
    EXPECT_EQ(ran, "") << "the real " << row.tool << " ran, in " << ran;
    EXPECT_NE(r.err.find("check: "), std::string::npos) << "no hint in: " << r.err;
  } else if (expect == "holder") {
    EXPECT_EQ(ran, ns_text(namespaces.at(id)))
        << "not in " << id << "'s holder (" << ns_text(namespaces.at(id)) << "): " << r.describe();
  } else {
    EXPECT_EQ(ran, ns_text(current_netns_id()))
        << "not in the caller's namespace: " << r.describe();
  }
  for (const auto& needle : row.stderr_has) {
    const std::string n = replaced(needle, tmp.path());
    EXPECT_NE(r.err.find(n), std::string::npos) << "stderr does not name " << n << ": " << r.err;
  }
  if (row.stderr_has.empty() && expect != "refused") {
    EXPECT_EQ(r.err, "") << "a call that runs says nothing of its own";
  }

  // (b) explain, in the same environment.
  std::vector<std::string> explain{NETNS_EXEC_BIN, "shim", "explain", "--json", "--", tool};
  for (const auto& a : args()) explain.push_back(a);
  RunResult e = run_command(explain, options());
  ASSERT_FALSE(e.signaled || e.timed_out) << e.describe();
  EXPECT_EQ(e.exit_code, row.status) << e.describe();
  nlohmann::json doc = nlohmann::json::parse(e.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << e.describe();
  EXPECT_EQ(doc.value("verdict", ""), expect) << e.out;
  if (!id.empty()) {
    EXPECT_EQ(doc.value("cluster", ""), id) << e.out;
    EXPECT_EQ(doc.value("held", false), true) << e.out;
    EXPECT_NE(doc.value("decision", "").find(ns_text(namespaces.at(id))), std::string::npos)
        << e.out;
  }
  if (expect == "refused") {
    EXPECT_TRUE(doc.contains("refusal")) << e.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, ShimDecisionTable, ::testing::ValuesIn(every_row()),
                         [](const ::testing::TestParamInfo<Row>& row) { return row.param.name; });

// The table covers every tool the shim stands in for, and enough of each.
TEST(ShimDecisionTableRows, CoverEveryToolAndEveryVerdict) {
  std::map<std::string, int> per_tool;
  std::map<std::string, int> per_verdict;
  for (const Row& row : rows()) {
    per_tool[row.tool]++;
    per_verdict[row.expect.substr(0, row.expect.find(':'))]++;
  }
  EXPECT_GE(rows().size(), 60u);
  for (const char* tool : {"rbd", "mount.ceph", "nvme", "mount.nfs", "mount.nfs4", "umount.nfs"})
    EXPECT_GE(per_tool[tool], 1) << tool;
  for (const char* verdict : {"holder", "untouched", "refused"})
    EXPECT_GE(per_verdict[verdict], 10) << verdict;
}

// The corpus is read whole: every line a row, none malformed, each tool in it.
TEST(ShimDecisionTableRows, TheCorpusIsReadAndCoversEverySessionTool) {
  const std::vector<Row> c = corpus();
  EXPECT_GE(c.size(), 30u);
  std::map<std::string, int> per_tool;
  for (const Row& row : c) {
    EXPECT_TRUE(row.expect.rfind("holder:", 0) == 0 || row.expect == "untouched") << row.expect;
    EXPECT_FALSE(row.args.empty()) << row.name;
    per_tool[row.tool]++;
  }
  for (const char* tool : {"rbd", "mount.ceph", "nvme", "mount.nfs"})
    EXPECT_GE(per_tool[tool], 3) << tool;
}

}  // namespace
}  // namespace netns::test::exec
