#include "netns_exec/shim/tools.hpp"

#include <algorithm>

#include "netns_exec/shim/targets.hpp"

namespace netns::exec::shim {

namespace {

using Args = std::vector<std::string>;

bool has(const Args& args, std::string_view word) {
  return std::find(args.begin(), args.end(), word) != args.end();
}

bool asks_for_help(const Args& args) { return has(args, "-h") || has(args, "--help"); }

// rbd: `map` and `device map` (krbd; `attach` for a device made elsewhere).
// Any word "map" or "attach" counts, wherever it stands: a pool named "map"
// makes `rbd ls map` a session-opening call too, which only costs it the
// check (over-reading is safe, under-reading is the hang). rbd matches its
// command words exactly (src/tools/rbd/Shell.cc): no abbreviation to expand.
bool rbd_opens_session(const Tool&, const Args& args) {
  if (asks_for_help(args)) return false;
  auto first = std::find_if(args.begin(), args.end(),
                            [](const std::string& a) { return a.empty() || a.front() != '-'; });
  if (first != args.end() && *first == "help") return false;
  return has(args, "map") || has(args, "attach");
}

// mount.ceph SOURCE DIR: every call with a source and a mount point mounts.
bool mount_opens_session(const Tool&, const Args& args) {
  if (asks_for_help(args) || has(args, "-V") || has(args, "--version")) return false;
  int words = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" || args[i] == "-t" || args[i] == "-O") {
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i].front() != '-') ++words;
  }
  return words >= 2;
}

bool never(const Tool&, const Args&) { return false; }

Named nothing_named(const Tool&, const Args&, const CephEnvironment&) { return {}; }
Named nvme_names(const Tool& t, const Args& args, const CephEnvironment&) {
  return nvme_target(t, args);
}
Named nfs_names(const Tool& t, const Args& args, const CephEnvironment&) {
  return nfs_server(t, args);
}

// The options every mount helper is handed by mount(8) (util-linux: -n no
// mtab, -v verbose, -f fake, -s sloppy, -r/-w read-only/read-write), and the
// generic mount flags of -o (mount(8) FILESYSTEM-INDEPENDENT MOUNT OPTIONS):
// harmless, they say how the file system is mounted, never from where.
constexpr Option kMountFlags{"-n -v -f -s -r -w", false, Means::harmless};
constexpr Option kMountKeys{
    "rw ro defaults auto noauto nofail _netdev atime noatime relatime norelatime strictatime "
    "nostrictatime diratime nodiratime lazytime nolazytime dev nodev suid nosuid exec noexec "
    "sync async dirsync mand nomand iversion noiversion user nouser users owner group silent "
    "loud context fscontext defcontext rootcontext x-*",
    false, Means::harmless};

// libceph's kernel options (net/ceph/ceph_common.c, ceph_parse_param),
// shared by krbd and the CephFS client: credentials, timeouts, the
// messenger's mode, the client's own address (ip=): none names a monitor
// (krbd's monitors are /sys/bus/rbd/add's first field, CephFS's the mount
// source or mon_addr=).
// nvme discover and connect-all (nvmf_discover, fabrics.c:797-808): the
// fabrics options, a discovery controller device, output and config. Where
// two options share a letter (-d, -S), getopt takes the first one's
// (argconfig's short option string): -d is --device, -S --dhchap-secret.
const std::vector<Option> kNvmeDiscoverOptions{
    {"-a --traddr", true, Means::target},
    {"-d --device -t --transport -s --trsvcid -w --host-traddr -f --host-iface -q --hostnqn -I "
     "--hostid -n --nqn -i --nr-io-queues -W --nr-write-queues -P --nr-poll-queues -Q "
     "--queue-size -k --keep-alive-tmo -c --reconnect-delay -l --ctrl-loss-tmo -T --tos -o "
     "--output-format -r --raw -J --config -S --dhchap-secret",
     true, Means::harmless},
    {"-D --duplicate-connect --disable-sqflow -g --hdr-digest -G --data-digest -p "
     "--persistent --quiet -v --verbose -O --dump-config --force -h --help",
     false, Means::harmless},
};

constexpr Option kLibcephKeys{
    "fsid ip osdkeepalive mount_timeout osd_idle_ttl osd_request_timeout name secret key share "
    "noshare crc nocrc cephx_require_signatures nocephx_require_signatures cephx_sign_messages "
    "nocephx_sign_messages tcp_nodelay notcp_nodelay abort_on_full read_from_replica ms_mode "
    "rxbounce",
    false, Means::harmless};

}  // namespace

const std::vector<Tool>& tools() {
  // umount.nfs and umount.nfs4 are nfs-utils' links to mount.nfs: a shim in
  // mount.nfs's place is theirs too, so it must run them, and never routes
  // them (an unmount names no server; NFSv4's is umount2(2) alone, NFSv3's
  // UMNT call to mountd is advisory).
  static const std::vector<Tool> rows{
      {{"rbd"},
       Naming::monitors,
       "cluster",
       "monitors",
       ConfigKind::rbd,
       "/var/lib/kubelet/plugins/rbd.csi.ceph.com",
       "map, device map, attach",
       // rbd's own options (boost, src/tools/rbd/ArgumentTypes.cc and
       // Shell.cc's global ones; Ceph's own, -m, -c, --id..., are
       // monitors.cpp's). Checked on rbd 16.2 here: an unknown option or an
       // abbreviation ("--mon-h") is "unrecognised option", and nothing runs.
       {
           // Which image, snapshot, device: names in the cluster, never hosts.
           {"-p --pool --namespace --image --snap --image-id --device --cookie --quiesce-hook "
            "--format",
            true, Means::harmless},
           // How it maps or lists: flags.
           {"--read-only --exclusive --quiesce --show-cookie --pretty-format --no-progress "
            "--force",
            false, Means::harmless},
           {"-t --device-type", true, Means::device_type},
           {"-o --options", true, Means::map_options},
       },
       // -o of --device-type nbd: rbd turns each into rbd-nbd's option
       // (src/tools/rbd/action/Nbd.cc); these set up the NBD device only.
       {{"try-netlink reattach-timeout io-timeout timeout nbds_max max_part quiesce "
         "quiesce-hook read-only exclusive notrim cookie show-cookie",
         false, Means::harmless}},
       {},
       rbd_opens_session,
       rbd_monitors},
      {{"mount.ceph"},
       Naming::monitors,
       "cluster",
       "monitors",
       ConfigKind::cephfs,
       "/var/lib/kubelet/plugins/cephfs.csi.ceph.com",
       "every mount",
       {kMountFlags},
       // The last -o (mount.ceph keeps that one only: checked on 16.2 here,
       // `-o A -o B` passes B). Its own keys (src/mount/mount.ceph.c:
       // name, secret, secretfile, conf, fs/mds_namespace, mon_addr), the
       // kernel CephFS client's (fs/ceph/super.c: sizes, caches, caps,
       // snapdirname, recovery; the file system, never the host), libceph's
       // and the generic flags.
       {{"conf", false, Means::conf},
        {"mon_addr", false, Means::mon_addr},
        {"name", false, Means::id},
        {"secretfile fs mds_namespace wsize rsize rasize caps_wanted_delay_min "
         "caps_wanted_delay_max caps_max readdir_max_entries readdir_max_bytes "
         "write_congestion_kb snapdirname dirstat nodirstat rbytes norbytes asyncreaddir "
         "noasyncreaddir dcache nodcache ino32 noino32 fsc nofsc poolperm nopoolperm "
         "require_active_mds norequire_active_mds quotadf noquotadf copyfrom nocopyfrom wsync "
         "nowsync acl noacl recover_session",
         false, Means::harmless},
        kLibcephKeys,
        kMountKeys},
       {},
       mount_opens_session,
       mount_ceph_monitors},
      {{"nvme"},
       Naming::targets,
       "holder",
       "target",
       std::nullopt,
       "/var/lib/kubelet/plugins/nvmeof.csi.ceph.com",
       "connect, connect-all, discover, dim",
       {},
       {},
       // nvme-cli 2.3's fabrics subcommands that open connections, each with
       // its getopt_long_only table (fabrics.c). plugin.c:153-176 strips
       // the subcommand's leading dashes and runs a unique prefix of a
       // name: such an abbreviation of these is refused (targets.hpp).
       // Harmless: the transport and its tuning, the host's identity and
       // keys, the local side (host-traddr, host-iface), output, config
       // files that only apply when no -a is given (which is refused).
       {{"connect",
         {{"-a --traddr", true, Means::target},
          {"-t --transport -s --trsvcid -w --host-traddr -f --host-iface -q --hostnqn -I "
           "--hostid -n --nqn -S --dhchap-secret -i --nr-io-queues -W --nr-write-queues -P "
           "--nr-poll-queues -Q --queue-size -k --keep-alive-tmo -c --reconnect-delay -l "
           "--ctrl-loss-tmo -T --tos -C --dhchap-ctrl-secret -J --config -o --output-format",
           true, Means::harmless},  // fabrics.c:83-104 (NVMF_OPTS), 972-979
          {"-D --duplicate-connect -d --disable-sqflow -g --hdr-digest -G --data-digest -v "
           "--verbose -O --dump-config -h --help",
           false, Means::harmless}}},
        {"connect-all", kNvmeDiscoverOptions},
        {"discover", kNvmeDiscoverOptions},
        {"dim",  // fabrics.c:1426-1431: a DIM command to discovery controllers
         {{"-n --nqn -d --device -t --task", true, Means::harmless},
          {"-v --verbose -h --help", false, Means::harmless}}}},
       nvme_connects,
       nvme_names},
      {{"mount.nfs", "mount.nfs4"},
       Naming::targets,
       "holder",
       "target",
       ConfigKind::nfs,
       "/var/lib/kubelet/plugins/nfs.csi.ceph.com",
       "every mount",
       {kMountFlags, {"-V -h", false, Means::harmless}, {"-t", true, Means::harmless}},
       // nfs(5)'s options: addr= and mountaddr= (the server and its mountd,
       // as the kernel takes them) and mounthost= (mountd's name) name
       // servers; the others say how (versions, transport, ports, sizes,
       // timeouts, caching, security flavours, the client's own address).
       {{"addr mountaddr mounthost", false, Means::target},
        {"vers nfsvers minorversion proto port mountport mountproto mountvers nfsprog "
         "mountprog rsize wsize timeo retrans retry hard soft softreval nosoftreval softerr intr "
         "nointr ac noac acregmin acregmax acdirmin acdirmax actimeo cto nocto lookupcache "
         "local_lock lock nolock sharecache nosharecache resvport noresvport fsc nofsc nconnect "
         "max_connect sec udp tcp rdma bg fg namlen acl noacl rdirplus nordirplus posix noposix "
         "trunkdiscovery notrunkdiscovery xprtsec clientaddr migration nomigration",
         false, Means::harmless},
        kMountKeys},
       {},
       mount_opens_session,
       nfs_names},
      {{"umount.nfs", "umount.nfs4"},
       Naming::nothing,
       "holder",
       "target",
       std::nullopt,
       "/var/lib/kubelet/plugins/nfs.csi.ceph.com",
       "none",
       {},
       {},
       {},
       never,
       nothing_named},
  };
  return rows;
}

const Tool* tool_named(std::string_view basename) {
  for (const Tool& t : tools())
    if (std::find(t.programs.begin(), t.programs.end(), basename) != t.programs.end()) return &t;
  return nullptr;
}

}  // namespace netns::exec::shim
