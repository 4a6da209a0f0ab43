# Sourced: start_holder DIR ID starts a real netns-holder ($holder_bin) for
# cluster ID in a network namespace of its own, publishing in DIR, and sets
# holder_pid (the caller's cleanup kills it), link (its <ID>.net.ns) and ino
# (the namespace's inode). Fails unless the holder published a namespace that
# is not ours. The wait is bounded (10 s).
start_holder() {
  local dir=$1 id=$2
  mkdir -p "$dir"
  unshare --net -- "$holder_bin" --cluster-id "$id" --dir "$dir" 2>"$dir.log" &
  holder_pid=$!
  for _ in $(seq 1 200); do
    [ -e "$dir/$id.holder.json" ] && [ -e "$dir/$id.net.ns" ] && break
    sleep 0.05
  done
  link=$dir/$id.net.ns
  [ -e "$link" ] || { echo "start_holder: the holder did not publish $link: $(cat "$dir.log")" >&2; exit 1; }
  ino=$(stat -L -c %i "$link")
  [ "$ino" != "$(stat -L -c %i /proc/self/ns/net)" ] || { echo "start_holder: the holder is not in its own namespace" >&2; exit 1; }
}
