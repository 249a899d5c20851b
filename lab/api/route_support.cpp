#include "lab/api/route_support.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/app/lab_keys.hpp"
#include "lab/base/did_you_mean.hpp"
#include "lab/http/accept.hpp"
#include "lab/http/http_server.hpp"

namespace quote_lab {

const std::string* query_param(const httplib::Request& req, std::string_view name) {
  return find_param(req.params, name);
}

std::optional<ApiError> parse_domain_param(const httplib::Request& req, const IntParam& p, int& out) {
  return parse_int_param(p, query_param(req, p.name), out);
}

std::optional<ApiError> check_known_params(const httplib::Request& req, const std::set<std::string>& known) {
  // `lab` selects the lab on every route and `lab_key` opens it (lab_routes checks both
  // before any handler runs). Most requests pass as they are: the set with them (a copy) is
  // built only for the rest.
  if (!check_query(req.target, req.params, known)) return std::nullopt;
  std::set<std::string> with_lab = known;
  with_lab.insert(std::string(kLabParam));
  with_lab.insert(std::string(kLabKeyParam));
  return check_query(req.target, req.params, with_lab);
}

ApiError unknown_policy_error(const Policies& policies, const std::string& typed, int status, const std::string& error) {
  std::string shown = typed.substr(0, 40);
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  auto names = policies.names();
  if (const auto meant = did_you_mean(typed, names))
    return api_error(status, error, MessageId::unknown_policy_did_you_mean,
                     {{"got", shown}, {"suggestion", *meant}}, std::move(names));
  return api_error(status, error, MessageId::unknown_policy, {{"got", shown}}, std::move(names));
}

Language request_language(const httplib::Request& req) {
  return message_language(req);
}

void send_api_error(const httplib::Request& req, httplib::Response& res, const ApiError& e) { send_error(req, res, e); }

std::string carrier_mode_asked(const httplib::Request& req, const std::string& body) {
  std::string wanted = req.get_param_value("mode");
  if (wanted.empty() && !body.empty()) {
    const auto j = nlohmann::ordered_json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("mode") && j["mode"].is_string()) wanted = j["mode"].get<std::string>();
  }
  return wanted;
}

bool serve_file(httplib::Response& res, const std::filesystem::path& file, const char* content_type) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  res.status = 200;
  res.set_content(buffer.str(), content_type);
  return true;
}

bool serve_page_to_browser(const httplib::Request& req, httplib::Response& res, const std::filesystem::path& page) {
  res.set_header("Vary", "Accept");
  return prefers_html(req.get_header_value("Accept")) && serve_file(res, page, "text/html; charset=utf-8");
}

void refuse_simulation(const httplib::Request& req, httplib::Response& res, const SimulationRunner& runner,
                       SimulationRunner::Admission admission) {
  const std::string retry_after = std::to_string(runner.retry_after_s());
  res.set_header("Retry-After", retry_after);
  if (admission == SimulationRunner::Admission::asker_full)
    return send_api_error(req, res, api_error(429, "simulations_yours_busy", MessageId::simulations_yours_busy,
                                              {{"max", std::to_string(SimulationRunner::kMaxPerAsker)}}));
  send_api_error(req, res, api_error(503, "simulations_busy", MessageId::simulations_busy,
                                     {{"max", std::to_string(SimulationRunner::kMaxWaiting)},
                                      {"retry_after_s", retry_after}}));
}

}  // namespace quote_lab
