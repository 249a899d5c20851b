// One lab's place in the class log (app/class_order.hpp), its rules exact on stream ids: what
// a setting made here hides, what the installed snapshot held, when a snapshot would be
// wrong, where a storm started here stands. The replicas' tests (test_class_log_replicas.cpp)
// run the same rules through Redis.
#include <doctest/doctest.h>

#include "lab/app/class_order.hpp"

namespace test_class_order {

using namespace quote_lab;
using Take = ClassOrder::Take;

TEST_CASE("class order: a reset made here hides what other replicas did before it, a mode made here hides older modes only") {
  ClassOrder order;
  CHECK(order.take("3-0", false) == Take::apply);  // no setting made here yet
  order.placed(true, "5-0");                       // a reset here, placed at 5-0
  CHECK(order.take("4-0", false) == Take::ignore);
  CHECK(order.take("4-1", true) == Take::ignore);
  CHECK(order.take("6-0", false) == Take::apply);
  order.placed(false, "8-0");  // a carrier mode here, placed at 8-0
  CHECK(order.take("7-0", true) == Take::ignore);                // an older mode: this one replaced it
  CHECK(order.take("7-1", false) == Take::apply_keeping_mode);  // an older reset or quote: keep the mode
  CHECK(order.take("9-0", true) == Take::apply);
  CHECK(order.last_entry() == "9-0");
}

TEST_CASE("class order: the installed snapshot's entries are not applied twice, and it completes the history") {
  ClassOrder order;
  order.mark_history_incomplete();
  CHECK(order.history_incomplete());
  order.installed("10-0", "9-3", {{"running", true}});
  CHECK_FALSE(order.history_incomplete());
  CHECK(order.last_entry() == "9-3");
  CHECK(order.remote_storm()["running"] == true);
  CHECK(order.take("10-0", false) == Take::ignore);
  CHECK(order.take("9-9", false) == Take::ignore);
  CHECK(order.take("10-1", false) == Take::apply);
  CHECK(order.last_entry() == "10-1");
}

TEST_CASE("class order: a setting read back is applied again only when its place was not known in time") {
  ClassOrder order;
  CHECK(order.read_back(true, true, "12-0"));  // a reset whose place share_in_order never learnt
  order.placed(true, "12-0");
  CHECK_FALSE(order.read_back(true, true, "12-0"));  // placed: nothing to redo
  CHECK_FALSE(order.read_back(false, false, "13-0"));  // a quote is never a setting
  CHECK(order.last_entry() == "13-0");
  CHECK(order.read_back(true, false, "14-0"));  // a mode after the last placed setting
}

TEST_CASE("class order: no snapshot through a place before a setting made here, nor from an incomplete history") {
  ClassOrder order;
  order.take("6-0", false);
  order.placed(false, "8-0");
  CHECK_FALSE(order.position_through("7-0", nullptr));  // the mode made here would be lost
  const auto at = order.position_through("8-0", nullptr);
  REQUIRE(at);
  CHECK(at->last_entry == "6-0");
  CHECK(at->storm.is_null());
  CHECK(order.position_through("8-0", {{"running", true}})->storm["running"] == true);  // the storm run here
  order.mark_history_incomplete();
  CHECK_FALSE(order.position_through("9-0", nullptr));
  order.reset();  // nothing before a reset counts
  CHECK(order.position_through("9-0", nullptr));
}

TEST_CASE("class order: a storm started here stands where the log placed it, before everything when its place is unknown") {
  ClassOrder order;
  CHECK_FALSE(order.storm_started_before("1-0"));  // none started
  order.place_storm_start([] { return std::optional<std::string>("20-0"); });
  CHECK(order.storm_started_before("21-0"));
  CHECK_FALSE(order.storm_started_before("19-0"));
  order.place_storm_start([] { return std::optional<std::string>(); });  // Redis did not take it in time
  CHECK(order.storm_started_before("1-0"));
}

TEST_CASE("class order: another replica's storm, as its entries tell it") {
  ClassOrder order;
  order.follow_remote_storm({.lab = "ana", .type = "storm_progress", .line = R"({"sent": 3})"});
  CHECK(order.remote_storm()["running"] == true);
  CHECK(order.remote_storm()["progress"]["sent"] == 3);
  order.follow_remote_storm({.lab = "ana", .type = "storm_result", .line = R"({"requests": 12})"});
  CHECK(order.remote_storm()["running"] == false);
  CHECK(order.remote_storm()["last_result"]["requests"] == 12);
  order.follow_remote_storm({.lab = "ana", .type = "storm_result", .line = "not json"});  // ignored
  CHECK(order.remote_storm()["last_result"]["requests"] == 12);
  order.reset();
  CHECK(order.remote_storm().is_null());
}

}  // namespace test_class_order
