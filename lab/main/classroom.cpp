#include "lab/main/classroom.hpp"

#include <spdlog/spdlog.h>

#include <cmath>

#include "lab/api/lab_routes.hpp"
#include "lab/api/route_support.hpp"
#include "lab/base/lab_name.hpp"

namespace quote_lab {

void add_classroom_flags(CLI::App& serve, ClassroomOptions& o) {
  serve.add_option("--max-connections", o.max_connections,
                   "connections held at once (idle keep-alive, live dashboards, requests); past it a new "
                   "connection gets a 503 and is closed")
      ->envname("MAX_CONNECTIONS")->check(CLI::Range(8, 4096))->capture_default_str();
  serve.add_option("--head-timeout-s", o.head_timeout_s,
                   "a request head still arriving this long after its first byte is dropped")
      ->envname("HEAD_TIMEOUT_S")->check(CLI::Range(0.1, 60.0))->capture_default_str();
  serve.add_option("--max-head-kb", o.max_head_kb, "largest request head (request line and headers) in KiB")
      ->envname("MAX_HEAD_KB")->check(CLI::Range(4, 1024))->capture_default_str();
  serve.add_option("--keep-alive-timeout-s", o.keep_alive_timeout_s,
                   "how long an idle keep-alive connection stays open for its next request")
      ->envname("KEEP_ALIVE_TIMEOUT_S")->check(CLI::Range(1, 300))->capture_default_str();
  serve.add_option("--keep-alive-max-requests", o.keep_alive_max_requests,
                   "requests served on one connection before it is closed")
      ->envname("KEEP_ALIVE_MAX_REQUESTS")->check(CLI::Range(1, 1000000))->capture_default_str();
  serve.add_option("--admin-token", o.admin_token,
                   "teacher token: resetting the lab, changing the carrier mode and storms need "
                   "'Authorization: Bearer TOKEN' (quotes and reads never do)")
      ->envname("LAB_ADMIN_TOKEN");
  serve.add_option("--allowed-hosts", o.allowed_hosts,
                   "host names the lab answers to besides IP addresses and localhost (comma-separated)")
      ->envname("ALLOWED_HOSTS")->delimiter(',');
  serve.add_option("--max-labs", o.max_labs,
                   "student labs (?lab=NAME) held at once; past it a new name gets a 503")
      ->envname("MAX_LABS")->check(CLI::Range(0, 1000))->capture_default_str();
  serve.add_option("--lab-idle-minutes", o.lab_idle_minutes,
                   "a student lab without a request for this long is forgotten (memory and state file)")
      ->envname("LAB_IDLE_MINUTES")->check(CLI::Range(1, 7 * 24 * 60))->capture_default_str();
  serve.add_option("--teacher-name", o.teacher_name,
                   "the owner of the teacher's labs (?lab=NAME-paso5): they count toward no student limit, their "
                   "storms are always admitted, and /class/reset and /class/carrier-mode leave them alone")
      ->envname("TEACHER_NAME")
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            LabNameProblem problem = LabNameProblem::none;
            const auto normal = normalize_lab_name(name, problem);
            if (!normal || normal->find('-') != std::string::npos)
              return "a teacher name is a lab name without '-' (letters a-z and digits), e.g. profe";
            name = *normal;
            return {};
          },
          "NAME"))
      ->capture_default_str();
}

void add_rate_limit_flags(CLI::App& serve, RateLimitOptions& o) {
  serve.add_option("--rate-limit", o.limit,
                   "quote requests per client per window (/quote-legacy, /quote-resilient); past it a 429 "
                   "with Retry-After; 0 = no limit")
      ->envname("RATE_LIMIT")->check(CLI::Range(0, RateLimitSettings::kMaxLimit))->capture_default_str();
  serve.add_option("--rate-window-s", o.window_s, "the rate limit's sliding window, in seconds")
      ->envname("RATE_WINDOW_S")->check(CLI::Range(1, RateLimitSettings::kMaxWindowS))->capture_default_str();
  serve.add_option("--trusted-proxy-header", o.trusted_proxy_header,
                   "a header your proxy sets to the client's address (e.g. X-Forwarded-For); only set it when "
                   "every request comes through that proxy: a client can write any address in it")
      ->envname("TRUSTED_PROXY_HEADER");
}

ConnectionLimits connection_limits(const ClassroomOptions& o) {
  ConnectionLimits l;
  l.max_connections = o.max_connections;
  l.head_timeout_ms = static_cast<int>(std::lround(o.head_timeout_s * 1000));
  l.max_head_bytes = static_cast<std::size_t>(o.max_head_kb) * 1024;
  l.keep_alive_timeout_ms = o.keep_alive_timeout_s * 1000;
  l.keep_alive_max_requests = o.keep_alive_max_requests;
  return l;
}

bool changes_lab(const httplib::Request& req) {
  // From the route table; a POST, PUT or DELETE the table does not list changes nothing
  // (it gets a 404 or 405) but is refused like a teacher-only one: a cross-site form
  // learns nothing from probing.
  if (req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS") return true;
  return teacher_only(req.method, req.path);
}

// A class-wide route acts on every student's lab: `?lab=` there names no lab of the caller's
// own, so it never stands in for the teacher token (the route then refuses the parameter).
bool for_student_lab(const httplib::Request& req) {
  return student_action(req.path) || (req.has_param(std::string(kLabParam)) && !class_wide(req.path));
}

std::optional<std::string> open_lab_warning(const std::string& listen_host, const std::string& admin_token,
                                            Language language) {
  const bool loopback = listen_host == "localhost" || listen_host == "::1" || listen_host.rfind("127.", 0) == 0;
  if (loopback || !admin_token.empty()) return std::nullopt;
  std::string routes;
  for (const auto& r : teacher_only_routes()) routes += (routes.empty() ? "" : ", ") + r;
  if (language == Language::es)
    return "escuchando en " + listen_host + " sin token del docente: cualquiera que llegue al laboratorio puede usar " +
           routes + " (restablecerlo, cambiar el modo del proveedor, lanzar o detener tormentas); define "
           "--admin-token o LAB_ADMIN_TOKEN para que sean solo del docente";
  return "listening on " + listen_host + " without a teacher token: anyone who can reach it can use " + routes +
         " (reset the lab, change the carrier mode, start or stop storms); set --admin-token or "
         "LAB_ADMIN_TOKEN to keep those for the teacher";
}

void apply_classroom(HttpServer& server, const std::string& listen_host, const ClassroomOptions& o,
                     Language language) {
  server.set_limits(connection_limits(o));
  AccessPolicy access{o.admin_token, {}};
  for (const auto& name : o.allowed_hosts)
    if (!name.empty()) access.allowed_hosts.push_back(name);
  server.set_access(std::move(access), changes_lab, for_student_lab);
  if (const auto warning = open_lab_warning(listen_host, o.admin_token, language)) spdlog::warn("{}", *warning);
}

}  // namespace quote_lab
