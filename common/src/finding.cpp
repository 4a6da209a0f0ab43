// The findings' shape (trust.hpp): a pass, a failure, the first failure and
// the refusal it makes, and who may own a holder's files. Every check returns
// these; nothing here reads anything.
#include <string>
#include <vector>

#include "netns/trust.hpp"

namespace netns::trust {

Error Finding::error() const { return cause ? *cause : Error(code, detail, hint); }

Error Finding::refusal() const {
  Error e = error();
  if (!cause && step != nullptr) e.context(step);
  return e;
}

namespace {
thread_local bool quiet_passes = false;
}  // namespace

bool pass_details_wanted() noexcept { return !quiet_passes; }
QuietPasses::QuietPasses() noexcept : saved_(quiet_passes) { quiet_passes = true; }
QuietPasses::~QuietPasses() { quiet_passes = saved_; }

Finding pass(const char* check, std::string detail) {
  Finding f;
  f.check = check;
  f.detail = std::move(detail);
  return f;
}

Finding fail(const char* check, Errc code, std::string detail, std::string hint) {
  Finding f;
  f.check = check;
  f.ok = false;
  f.code = code;
  f.detail = std::move(detail);
  f.hint = std::move(hint);
  return f;
}

Finding fail(const char* check, const Error& e) {
  Finding f = fail(check, e.code(), e.message(), e.hint());
  f.cause = e;
  return f;
}

const Finding* first_failure(const std::vector<Finding>& findings) {
  for (const Finding& f : findings)
    if (!f.ok) return &f;
  return nullptr;
}

bool Owners::trusted(uid_t uid) const {
  if (uid == 0) return true;
  for (uid_t u : uids)
    if (u == uid) return true;
  return false;
}

std::string Owners::or_trust(std::string_view whose) const {
  if (option.empty()) return {};
  return ", or name " + std::string(whose) + " with " + std::string(option);
}

std::string Owners::text() const {
  std::string out = "root";
  for (size_t i = 0; i < uids.size(); ++i)
    out += (i == 0 ? " or uid " : ", ") + std::to_string(uids[i]);
  return out;
}

}  // namespace netns::trust
