# shellcheck shell=bash
# Pods as runc containers, the way a kubelet + containerd runs them:
#   - rootfs: an empty directory with read-only bind mounts of the host's /usr and /etc (and the
#     /bin, /lib, /lib64, /sbin links or directories), like a distroless image made of the host;
#   - the network namespace is the prepared pod sandbox namespace, joined by path
#     (linux.namespaces {"type":"network","path":...}) exactly as a pod's containers share it;
#   - no "pid" entry = hostPID: true; with --own-pid the container gets its own pid namespace;
#   - privileged like a CSI node plugin: all capabilities, host /dev, no device cgroup limits;
#     or, with --unprivileged, like the holder's manifest: every capability dropped, no privilege
#     escalation, read-only root filesystem, a private /dev;
#   - hostPath volumes are bind mounts at the same path; "--bidir PATH" is mountPropagation:
#     Bidirectional (the container's mounts under PATH appear on the host).
# Containers live under our own runc state root, so nothing here sees anybody else's containers.
#
# Needs common.sh. E2E_RUN must be set.

e2e_runc() { runc --root "$E2E_RUN/runc" "$@"; }

# Privileged containers get every capability this host's bounding set has (asking runc for one the
# host lacks, e.g. CAP_SYS_RESOURCE in some sandboxes, fails the start with EPERM).
E2E_CAP_NAMES=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
  LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE
  SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME
  SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG
  WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE)
e2e_host_caps() {
  local mask i out=()
  mask=$((16#$(awk '/^CapBnd:/ {print $2}' /proc/self/status)))
  for i in "${!E2E_CAP_NAMES[@]}"; do
    (((mask >> i) & 1)) && out+=("CAP_${E2E_CAP_NAMES[$i]}")
  done
  jq -c -n '$ARGS.positional' --args -- "${out[@]}"
}

# e2e_pod_run SCOPE ID NETNS [--own-pid] [--unprivileged] [--image TREE] [--ro SRC:DST]... [--rw SRC:DST]... [--bidir PATH]...
#             [--env K=V]... -- ARGS...
# Create the bundle and start the container detached; its init is ARGS. With --image the rootfs is
# a (hard-linked) copy of TREE, an image's file tree, instead of the host's /usr and /etc. The init's stdout and
# stderr go to $E2E_RUN/pods/ID/log.
e2e_pod_run() {
  local scope=$1 id=$2 netns=$3
  shift 3
  local own_pid=0 mounts='[]' env='["PATH=/opt/netns:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]'
  local bidir=0 priv=1 image=''
  while [ $# -gt 0 ]; do
    case $1 in
    --own-pid) own_pid=1 ;;
    --unprivileged) priv=0 ;;
    --image) image=$2; shift ;;
    --ro | --rw)
      local opts='["rbind","ro"]'
      [ "$1" = --rw ] && opts='["rbind","rw"]'
      mounts=$(jq -c --arg s "${2%%:*}" --arg d "${2#*:}" --argjson o "$opts" \
        '. + [{destination:$d,type:"bind",source:$s,options:$o}]' <<<"$mounts")
      shift
      ;;
    --bidir)
      bidir=1
      mounts=$(jq -c --arg p "$2" '. + [{destination:$p,type:"bind",source:$p,options:["rbind","rw","rshared"]}]' <<<"$mounts")
      shift
      ;;
    --env)
      env=$(jq -c --arg e "$2" '. + [$e]' <<<"$env")
      shift
      ;;
    --) shift; break ;;
    *) e2e_die "e2e_pod_run: unknown option $1" ;;
    esac
    shift
  done
  local bundle=$E2E_RUN/pods/$id
  rm -rf "$bundle"
  mkdir -p "$bundle/rootfs"
  local d base=()
  if [ -n "$image" ]; then
    cp -al "$image/." "$bundle/rootfs/"
  else
    base=(/usr /etc)
    # Merged-/usr hosts have /bin etc. as links into /usr: copy the link; bind real directories.
    for d in bin lib lib64 sbin; do
      if [ -L "/$d" ]; then
        ln -s "$(readlink "/$d")" "$bundle/rootfs/$d"
      elif [ -d "/$d" ]; then
        base+=("/$d")
      fi
    done
  fi
  local args
  args=$(jq -c -n '$ARGS.positional' --args -- "$@")
  jq -n \
    --arg hostname "${id:0:63}" --arg netns "$netns" --argjson args "$args" --argjson env "$env" \
    --argjson caps "$([ "$priv" = 1 ] && e2e_host_caps || echo '[]')" --argjson priv "$priv" --argjson extra "$mounts" --argjson ownpid "$own_pid" --argjson bidir "$bidir" \
    --argjson base "$(jq -c -n '$ARGS.positional' --args -- "${base[@]}")" \
    -f /dev/stdin >"$bundle/config.json" <<'EOF'
{
  ociVersion: "1.0.2",
  process: {
    terminal: false, user: {uid: 0, gid: 0}, args: $args, env: $env, cwd: "/",
    capabilities: {bounding: $caps, effective: $caps, permitted: $caps},
    noNewPrivileges: ($priv == 0)
  },
  root: {path: "rootfs", readonly: ($priv == 0)},
  hostname: $hostname,
  mounts: ([
    {destination: "/proc", type: "proc", source: "proc"},
    (if $priv == 1 then {destination: "/dev", type: "bind", source: "/dev", options: ["rbind", "rw"]}
     else {destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "strictatime", "mode=755", "size=65536k"]} end),
    {destination: "/sys", type: "bind", source: "/sys", options: ["rbind", "ro"]},
    {destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]},
    {destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]}
  ] + [$base[] | {destination: ., type: "bind", source: ., options: ["rbind", "ro"]}] + $extra),
  linux: ({
    namespaces: ([{type: "mount"}, {type: "uts"}, {type: "ipc"}, {type: "network", path: $netns}]
      + (if $ownpid == 1 then [{type: "pid"}] else [] end)),
    resources: (if $priv == 1 then {devices: [{allow: true, access: "rwm"}]} else {} end)
  } + (if $bidir == 1 then {rootfsPropagation: "rshared"} else {} end))
}
EOF
  mkdir -p "$E2E_RUN/runc"
  : >"$scope/containers/$id"
  # Appending, like the pipe a kubelet's runtime gives a container: other writers to the log (the
  # preStop guard writes to the holder's stderr) add lines instead of being overwritten.
  e2e_runc run -d --bundle "$bundle" --pid-file "$bundle/pid" "$id" \
    </dev/null >>"$bundle/log" 2>&1 || e2e_die "runc run $id failed: $(tail -n 5 "$bundle/log")"
  e2e_track_pid "$scope" "pod.$id" "$(cat "$bundle/pid")" ||
    e2e_die "pod $id exited at once: $(tail -n 5 "$bundle/log")"
}

# The host PID of a pod's init.
e2e_pod_pid() { cat "$E2E_RUN/pods/$1/pid"; }

# e2e_pod_exec ID ARGS... — run a command in a running pod (kubectl exec), output to ours. Bounded
# by E2E_POD_EXEC_LIMIT seconds (runc exec passes the TERM on to the command).
e2e_pod_exec() {
  local id=$1
  shift
  timeout -k 5 "${E2E_POD_EXEC_LIMIT:-90}" runc --root "$E2E_RUN/runc" exec --env "PATH=/opt/netns:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$id" "$@"
}

# e2e_pod_delete SCOPE ID [SIGNAL] — stop the pod's init (TERM by default) and delete the
# container. After TERM the init gets E2E_TERM_GRACE seconds (30, a pod's default
# terminationGracePeriodSeconds) to exit before KILL: on a loaded machine a holder needs more
# than a moment to clean up, and a KILL it did not get in a real cluster would leave files the
# scenario then trips over. A KILL after the grace is logged.
e2e_pod_delete() {
  local scope=$1 id=$2 sig=${3:-TERM} pid
  if pid=$(e2e_tracked_pid "$scope" "pod.$id"); then
    kill -"$sig" "$pid" 2>/dev/null || true
    if [ "$sig" != KILL ]; then
      local deadline=$((SECONDS + ${E2E_TERM_GRACE:-30}))
      while e2e_tracked_pid "$scope" "pod.$id" >/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
        sleep 0.05
      done
      if e2e_tracked_pid "$scope" "pod.$id" >/dev/null; then
        e2e_log "pod $id (pid $pid) did not exit within ${E2E_TERM_GRACE:-30}s of SIG$sig: KILL"
        kill -KILL "$pid" 2>/dev/null || true
      fi
    fi
  fi
  e2e_runc delete --force "$id" >/dev/null 2>&1 || true
  rm -f "$scope/containers/$id" "$scope/pids/pod.$id"
}

e2e_pod_cleanup_all() {
  local scope=$1 f
  for f in "$scope"/containers/*; do
    [ -e "$f" ] || continue
    e2e_pod_delete "$scope" "$(basename "$f")" KILL
  done
}
