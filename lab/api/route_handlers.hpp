#pragma once
// The handlers that route_table.cpp lists, one group per file (see RouteHandler for the
// signature). Each parses its request, calls LabApp or the storm runner, and answers with
// the renderings of json_views; none registers itself anywhere.

#include <string>

#include "lab/api/route_table.hpp"

namespace quote_lab::handlers {

// routes_quotes.cpp — one quote flow per request.
void quote_legacy(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void quote_resilient(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
/// GET /quote/{policy}: a named policy; an unknown name is a 404 listing the names.
void quote_named(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_state.cpp — the lab's state and what changes it.
void health(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void dependency_state(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void incidents(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void reset_lab(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void carrier(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void carrier_mode(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_diagnostics.cpp — counters, percentiles and metrics.
void diagnostics_summary(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void metrics(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void metrics_prometheus(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_experiments.cpp — a storm run by the lab against itself.
void storm_status(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void storm_start(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void storm_cancel(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_simulate.cpp — a storm in simulated time, answered at once.
void simulate(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
// routes_map.cpp — one point of the metastability map in simulated time.
void map_point(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
// routes_scorecard.cpp — the class challenge: a design posted, scored in simulated time, kept.
void scorecard_post(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void scorecard_get(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_claim.cpp — a student claims a name (step 0); the teacher issues a new key.
void claim(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_class.cpp — every student lab at once: the class view and the teacher's class-wide actions.
void class_view(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void class_reset(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void class_carrier_mode(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_index.cpp — the JSON index for curl, the dashboard for a browser.
void index(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

// routes_events_static.cpp — the dashboard's files and its live event stream.
void ui_redirect(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void ui_file(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);
void events(RouteContext&, const httplib::Request&, const std::string&, httplib::Response&);

}  // namespace quote_lab::handlers
