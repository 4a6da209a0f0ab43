// netns-exec's command line: the SOURCE option group every namespace-using
// subcommand shares (--netns | --cluster-id [--config] [--kind] | --socket,
// --wait-holder, --identity, --allow-own-netns), parsed by CLI11 and turned
// into a Source and ResolveOptions exactly as the CLI does before it resolves
// anything. The CLI's main() parses and runs in one go, so the app is rebuilt
// here in the CLI's shape (main.cpp: one required subcommand, fallthrough,
// the global --log-* options; a run-like subcommand with its positional
// command and an inspect-like one without) around the real SourceOptions.
// The input is argv without the program name, NUL-separated. Properties:
// parsing never throws anything but a CLI11 ParseError or a netns::Error, it
// terminates (libFuzzer's -timeout), and an accepted source has exactly one
// kind carrying the value given.
//
// Found with an earlier version of this target: CLI11 2.1.2 (Debian) loops
// forever on `"" -s` when an option group sits on the top-level app. netns-exec
// puts its groups on subcommands, which this shape keeps covered.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "fuzz_target.hpp"
#include "source_options.hpp"

namespace {

void check(const netns::cli::SourceOptions& options) {
  netns::fuzz::rejecting_errors([&] {
    netns::exec::Source source = options.source();
    netns::exec::ResolveOptions resolve = options.resolve_options();
    NETNS_FUZZ_CHECK(resolve.wait_holder.count() >= 0);
    switch (source.kind) {
      case netns::exec::Source::Kind::path:
        NETNS_FUZZ_CHECK(source.path == options.netns);
        break;
      case netns::exec::Source::Kind::socket:
        NETNS_FUZZ_CHECK(source.path == options.socket);
        break;
      case netns::exec::Source::Kind::cluster:
        NETNS_FUZZ_CHECK(source.cluster_id == options.cluster_id);
        break;
    }
    (void)source.describe();
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string_view text = netns::fuzz::as_text(data, size);
  for (size_t pos = 0; pos <= text.size() && args.size() < 32;) {
    size_t end = text.find('\0', pos);
    if (end == std::string_view::npos) end = text.size();
    args.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  // CLI11 takes argv back to front, without the program name.
  std::vector<std::string> reversed(args.rbegin(), args.rend());

  CLI::App app{"fuzz", "netns-exec"};
  app.require_subcommand(1);
  app.fallthrough();
  std::string log_format, log_level;
  app.add_option("--log-format", log_format);
  app.add_option("--log-level", log_level);

  netns::cli::SourceOptions run_source, inspect_source;
  std::vector<std::string> command;
  std::string timeout;
  bool json = false;
  CLI::App* run = app.add_subcommand("run", "run-like");
  run_source.add_to(*run);
  run->add_option("--timeout", timeout);
  run->add_flag("--json", json);
  run->add_option("command", command)->required();
  CLI::App* inspect = app.add_subcommand("inspect", "inspect-like");
  inspect_source.add_to(*inspect);
  inspect->add_flag("--json", json);
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {
    return 0;
  }
  if (run->parsed()) check(run_source);
  if (inspect->parsed()) check(inspect_source);
  return 0;
}
