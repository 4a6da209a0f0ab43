# shellcheck shell=bash
# Host side of the kernel suite: the state the fixture leaves for the scenarios.
# Needs test/e2e/lib/common.sh.
KTEST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KVM_LIB=$KTEST_SRC/lib
: "${KTEST_BUILD_DIR:?KTEST_BUILD_DIR (the build tree) must be set; ctest sets it}"
KTEST_DIR=$KTEST_BUILD_DIR/test/kernel
KTEST_RUN=$KTEST_DIR/run
KTEST_STATE=$KTEST_RUN/state.env
KTEST_FIGURES=$KTEST_DIR/kernel-figures.txt
KTEST_INITRD=$KTEST_DIR/vm/initrd.cpio.gz

ktest_require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "kernel: needs root (it creates network namespaces, a tap device and a VM); skipped"
    exit 77
  fi
}

# ktest_figure_put FILE LINE — replace the figure with LINE's key ("FIGURE kernel.x:") by LINE.
ktest_figure_put() {
  local file=$1 line=$2 key
  key=${line%%:*}
  touch "$file"
  { grep -vF "$key:" "$file" || true; echo "$line"; } >"$file.tmp"
  mv "$file.tmp" "$file"
}
