package netnsexec

// Version is the netns-holder release this package belongs to. It comes
// from the VERSION file at the top of the source tree, as the installed
// libnetns_exec's does (netns_exec.pc, netns_exec_version()); a unit test
// (test/release/version_test.sh) fails when the two differ.
const Version = "0.1.0"
