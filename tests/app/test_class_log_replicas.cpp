// One classroom across replicas, in one process: two LabRegistry "replicas", each with its
// own Redis client and class log (shared_state/class_log.hpp) on one real redis-server, as
// `serve --state-backend redis://…` wires them. What one replica does in a lab reaches the
// other's telemetry, incidents, /class row and open page; a reset or a carrier mode ends the
// same on both whatever order Redis placed concurrent entries in. The carrier and the
// breaker's clock are fake; the log's threads poll Redis in real time, so the checks wait
// (bounded) for the two replicas to agree, then assert once.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "lab/app/lab_registry.hpp"
#include "lab/shared_state/redis_lab_snapshots.hpp"
#include "support/fake_clock.hpp"
#include "support/fixed_random.hpp"
#include "support/paths.hpp"
#include "support/poll.hpp"
#include "support/quote_answers.hpp"
#include "support/redis_server.hpp"
#include "support/scripted_carrier.hpp"
#include "support/temp_dir.hpp"

namespace test_class_log_replicas {

using namespace quote_lab;
using namespace quote_lab::testing;

namespace {

const ScenarioCatalog& shipped_scenarios() {
  static const ScenarioCatalog catalog =
      ScenarioCatalog::load_dir(std::filesystem::path(quote_lab::testing::source_dir()) / "scenarios");
  return catalog;
}

// A replica's Redis client, connected before its labs are made (they read the shared breaker).
struct Connection {
  Connection(const RedisServer& redis, std::uint64_t seed) : random(seed), client(redis.patient_client(), clock, random) {
    client.connect_or_throw();
  }
  FakeClock clock;
  RandomSource random;
  RedisClient client;
};

struct Replica : Connection {
  // `log_running` false: the class log starts at start_log(); until then this replica's
  // entries wait in it, as they would behind a slow Redis.
  Replica(const RedisServer& redis, std::uint64_t seed, bool log_running = true)
      : Connection(redis, seed),
        log(client, "replica-" + std::to_string(seed)),
        labs(LabDeps{.scenarios = shipped_scenarios(), .policies = default_policies(), .carrier = carrier,
                     .clock = clock, .random = draws, .shared_state = &client, .class_log = &log},
             dir.path() / "state.json", LabLimits{}) {
    if (log_running) start_log();
  }
  void start_log() {
    labs.start_class_log();
  }
  ~Replica() { log.stop(); }

  // "" is the teacher's lab.
  std::shared_ptr<Lab> lab(const std::string& name) {
    if (name.empty()) return {std::shared_ptr<Lab>{}, &labs.teacher()};
    const auto found = labs.find(&name);
    REQUIRE(found.lab);
    return found.lab;
  }
  // A quote in `name` as GET /quote/resilient runs it: the flow, then the answer shared.
  std::string quote(const std::string& name) {
    carrier.succeed(20);
    Lab& l = *lab(name);
    const auto result = l.app.quote(Mode::resilient, "ok", 42, 3);
    quote_answer_text(l.app, result);
    return result.trace.request.request_id;
  }
  std::uint64_t requests(const std::string& name) { return lab(name)->app.class_totals().requests; }
  // Everything it appended is in Redis, and it has read everything the class appended.
  bool settled() {
    if (log.pending() != 0) return false;
    const auto stream = log.info();
    return stream && !ClassLog::before(log.position(), stream->last_id);
  }

  TempDir dir;
  ScriptedCarrier carrier{clock};
  FixedRandom draws{0.5};
  ClassLog log;
  LabRegistry labs;
};

// Both replicas have appended and read everything and `agree` holds (bounded: 5 s).
template <class Agree>
bool converged(Replica& a, Replica& b, Agree agree) {
  return eventually([&] { return a.settled() && b.settled() && agree(); }, std::chrono::seconds(5));
}

}  // namespace

TEST_CASE("class log: a quote on one replica reaches the other's telemetry, incidents, class and open page") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  const auto page = b.lab("ana")->app.events().subscribe();  // ana's page, held by replica b
  REQUIRE(page);
  const std::string id = a.quote("ana");
  REQUIRE(converged(a, b, [&] { return b.requests("ana") == 1; }));
  CHECK(a.requests("ana") == 1);
  const auto incidents = b.lab("ana")->app.incidents(10);
  REQUIRE(incidents.size() == 1);
  CHECK(incidents[0].request_id == id);
  CHECK(incidents[0].mode == "resilient");
  CHECK(diagnostics(b.lab("ana")->app)["modes"]["resilient"]["successes"] == 1);
  const auto rows = b.labs.class_rows();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].name == "ana");
  CHECK(rows[0].totals.carrier_calls == 1);
  bool closed = false;
  const auto events = b.lab("ana")->app.events().wait(*page, Millis(1000), closed);
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "quote");
  CHECK(events[0].data.find(id) != std::string::npos);
  CHECK(b.labs.teacher().app.class_totals().requests == 0);  // the other labs are left alone
}

TEST_CASE("class log: an entry Redis took twice (an XADD retried after a timeout) counts once, and what is no page event reaches no page") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  const auto page = b.lab("ana")->app.events().subscribe();
  REQUIRE(page);
  a.quote("ana");
  REQUIRE(converged(a, b, [&] { return b.requests("ana") == 1; }));
  // The quote's entry, appended again with the same origin and sequence, as a retried XADD is.
  RedisClient admin(redis.patient_client(), a.clock, a.random);
  admin.connect_or_throw();
  const auto range = admin.command({"XRANGE", ClassLog::kStreamKey, "-", "+"});
  REQUIRE(range);
  std::vector<std::string> again{"XADD", ClassLog::kStreamKey, "*"};
  for (const auto& entry : range->elements) {
    const auto& fields = entry.elements[1].elements;
    if (fields.size() < 6 || fields[5].text.find("\"type\":\"quote\"") == std::string::npos) continue;
    for (const auto& f : fields) again.push_back(f.text);
  }
  REQUIRE(again.size() == 9);  // o, s, e and their values
  REQUIRE(admin.command(again));
  // An entry of a type no page knows, and a mode that is none.
  REQUIRE(admin.command({"XADD", ClassLog::kStreamKey, "*", "o", "forger", "s", "1", "e",
                         R"({"lab":"ana","type":"mystery","line":"{\"hello\":1}"})"}));
  REQUIRE(admin.command({"XADD", ClassLog::kStreamKey, "*", "o", "forger", "s", "2", "e",
                         R"({"lab":"ana","type":"carrier_mode","line":"{}","mode":"no_such_mode"})"}));
  a.quote("ana");  // read after them
  REQUIRE(converged(a, b, [&] { return b.requests("ana") == 2; }));
  CHECK(b.lab("ana")->app.carrier_mode() == "ok");
  bool closed = false;
  std::vector<std::string> types;
  for (const auto& e : b.lab("ana")->app.events().wait(*page, Millis(500), closed)) types.push_back(e.type);
  CHECK(types == std::vector<std::string>{"quote", "quote"});
}

TEST_CASE("class log: a lab created on one replica is held by the other, so --max-labs counts the class") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  a.lab("eva");
  a.lab("leo");
  REQUIRE(converged(a, b, [&] { return b.labs.student_count() == 2; }));
  CHECK(b.labs.class_rows().size() == 2);
}

TEST_CASE("class log: quotes that reach Redis after another replica's reset count after it, on both replicas") {
  RedisServer redis;
  Replica a(redis, 1, false), b(redis, 2);
  for (int i = 0; i < 3; ++i) a.quote("ana");
  CHECK(a.requests("ana") == 3);  // a's own answers count at once
  b.lab("ana");
  reset_lab(b.lab("ana")->app, b.lab("ana")->storm);  // placed in the log before a's quotes
  a.start_log();
  // The class's order is: reset, then a's three quotes. a reads the reset after counting
  // them, and must keep them; b counts them after its reset.
  REQUIRE(converged(a, b, [&] { return b.requests("ana") == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // a has read everything
  CHECK(a.requests("ana") == 3);
  CHECK(b.requests("ana") == 3);
}

TEST_CASE("class log: a replica that starts late replays the class, and forgets the labs idle since") {
  RedisServer redis;
  Replica a(redis, 1);
  a.quote("ana");
  a.quote("ana");
  a.quote("eva");
  REQUIRE(eventually([&] { return a.settled(); }, std::chrono::seconds(5)));
  {
    Replica late(redis, 2);
    REQUIRE(eventually([&] { return late.log.caught_up() && late.labs.student_count() == 2; }, std::chrono::seconds(5)));
    CHECK(late.requests("ana") == 2);
    CHECK(late.requests("eva") == 1);
  }
  // A replica that starts an idle period after the class's last entry: the labs were last
  // active when their entries were appended, so it does not hold them for another period.
  Replica later(redis, 3, false);
  later.clock.advance_wall(std::chrono::duration_cast<Millis>(std::chrono::system_clock::now() - later.clock.wall_now()) +
                           std::chrono::minutes(kDefaultLabIdleMinutes + 1));
  later.start_log();
  REQUIRE(eventually([&] { return later.log.caught_up(); }, std::chrono::seconds(5)));
  CHECK(later.labs.class_rows().empty());
}

TEST_CASE("class log: a reset on one replica right after quotes on the other ends the same on both, in any order") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  // Rounds: the reset is placed in the log before, between or after a's three entries,
  // whichever Redis took first; both replicas must end on that order's count.
  for (int round = 0; round < 5; ++round) {
    CAPTURE(round);
    for (int i = 0; i < 3; ++i) a.quote("ana");
    reset_lab(b.lab("ana")->app, b.lab("ana")->storm);
    REQUIRE(converged(a, b, [&] { return a.requests("ana") == b.requests("ana"); }));
    const auto n = a.requests("ana");
    CHECK(n <= 3);
    // Settled: nothing moves any more.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    CHECK(a.requests("ana") == n);
    CHECK(b.requests("ana") == n);
    reset_lab(a.lab("ana")->app, a.lab("ana")->storm);
    REQUIRE(converged(a, b, [&] { return a.requests("ana") == 0 && b.requests("ana") == 0; }));
  }
}

TEST_CASE("class log: carrier modes set on two replicas at once end the same on both") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  // Made here, not first in the threads: the lab's first log line makes spdlog's registry,
  // which two threads must not make at once.
  a.lab("ana");
  b.lab("ana");
  for (int round = 0; round < 10; ++round) {
    CAPTURE(round);
    std::thread ta([&] { CHECK(a.lab("ana")->app.set_carrier_mode("flaky_provider")); });
    std::thread tb([&] { CHECK(b.lab("ana")->app.set_carrier_mode("slow_provider")); });
    ta.join();
    tb.join();
    REQUIRE(converged(a, b, [&] { return a.lab("ana")->app.carrier_mode() == b.lab("ana")->app.carrier_mode(); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const std::string mode = a.lab("ana")->app.carrier_mode();
    CHECK((mode == "flaky_provider" || mode == "slow_provider"));
    CHECK(b.lab("ana")->app.carrier_mode() == mode);
  }
}

namespace {
// Redis's own answer to `argv` (a test's direct look at what the replicas wrote).
RedisValue redis_says(Replica& r, const std::vector<std::string>& argv) {
  const auto v = r.client.command(argv);
  REQUIRE(v);
  return *v;
}

// Replica `r` has written snapshots of `labs` that hold every entry it made in them. Each
// call moves r's clock on to its next snapshot round.
bool snapshots_written(Replica& r, const std::vector<std::string>& labs) {
  r.clock.advance(LabRegistry::kSnapshotEvery);
  RedisLabSnapshots store(r.client);
  const auto stored = store.positions();
  if (!stored || !r.settled()) return false;
  for (const std::string& name : labs) {
    const auto it = stored->find(name);
    if (it == stored->end() || ClassLog::before(it->second, r.lab(name)->app.class_order().last_entry())) return false;
  }
  return true;
}
}  // namespace

TEST_CASE("class log: a replica that starts after the class's entries left the stream starts from the labs' snapshots") {
  RedisServer redis;
  Replica a(redis, 1);
  for (int i = 0; i < 5; ++i) a.quote("ana");
  REQUIRE(a.lab("ana")->app.set_carrier_mode("provider_down"));
  a.quote("eva");
  a.quote("");  // the teacher's lab
  a.quote("");
  REQUIRE(eventually([&] { return snapshots_written(a, {"ana", "eva", ""}); }, std::chrono::seconds(5)));
  // ana's snapshot was written before eva's and the teacher's quotes: the writer moves its
  // position on while ana does not change, so a replica knows nothing of ana was dropped.
  REQUIRE(eventually([&] {
    a.clock.advance(LabRegistry::kSnapshotEvery);
    const auto p = RedisLabSnapshots(a.client).positions();
    return p && p->size() == 3 && p->at("ana") == p->at("") && p->at("eva") == p->at("");
  }, std::chrono::seconds(5)));
  // The stream keeps the class's last entries only: here it has dropped them all.
  redis_says(a, {"XTRIM", ClassLog::kStreamKey, "MAXLEN", "0"});

  Replica late(redis, 2);
  REQUIRE(eventually([&] { return late.log.caught_up(); }, std::chrono::seconds(5)));
  CHECK(late.labs.student_count() == 2);
  CHECK(late.requests("ana") == 5);
  CHECK(late.requests("eva") == 1);
  CHECK(late.labs.teacher().app.class_totals().requests == 2);
  CHECK(late.lab("ana")->app.carrier_mode() == "provider_down");
  CHECK(late.lab("eva")->app.carrier_mode() == "ok");
  const auto mine = a.lab("ana")->app.incidents(10), theirs = late.lab("ana")->app.incidents(10);
  REQUIRE(theirs.size() == mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) CHECK(theirs[i].request_id == mine[i].request_id);
  CHECK(diagnostics(late.lab("ana")->app)["modes"] == diagnostics(a.lab("ana")->app)["modes"]);
  CHECK_FALSE(late.lab("ana")->app.class_order().history_incomplete());
  // What happens after the snapshot reaches it as before, counted once.
  a.quote("ana");
  REQUIRE(converged(a, late, [&] { return late.requests("ana") == 6; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  CHECK(late.requests("ana") == 6);
  CHECK(a.requests("ana") == 6);
}

TEST_CASE("class log: after Redis comes back empty, the replicas write the labs' snapshots again for the next to start") {
  RedisServer redis;
  Replica a(redis, 1);
  for (int i = 0; i < 3; ++i) a.quote("ana");
  REQUIRE(eventually([&] { return snapshots_written(a, {"ana"}); }, std::chrono::seconds(5)));
  redis_says(a, {"FLUSHALL"});  // as a Redis restarted without its data
  REQUIRE(eventually([&] { return snapshots_written(a, {"ana"}); }, std::chrono::seconds(5)));
  Replica late(redis, 2);
  REQUIRE(eventually([&] { return late.log.caught_up(); }, std::chrono::seconds(5)));
  CHECK(late.requests("ana") == 3);
  CHECK_FALSE(late.lab("ana")->app.class_order().history_incomplete());
}

TEST_CASE("class log: a lab whose early entries left the stream with no snapshot is marked short, until its next reset") {
  RedisServer redis;
  Replica a(redis, 1);
  for (int i = 0; i < 4; ++i) a.quote("ana");
  REQUIRE(eventually([&] { return a.settled(); }, std::chrono::seconds(5)));
  // No snapshot, and the stream keeps ana's last two quotes only. a stops reading meanwhile:
  // a replica that holds the lab writes its snapshot again when Redis lost it.
  a.log.stop();
  redis_says(a, {"DEL", RedisLabSnapshots::kSnapshotsKey, RedisLabSnapshots::kPositionsKey});
  redis_says(a, {"XTRIM", ClassLog::kStreamKey, "MAXLEN", "2"});
  Replica late(redis, 2);
  REQUIRE(eventually([&] { return late.log.caught_up() && late.labs.student_count() == 1; }, std::chrono::seconds(5)));
  CHECK(late.requests("ana") == 2);  // what the stream still held
  CHECK(late.lab("ana")->app.class_order().history_incomplete());
  // Its own snapshot would spread the gap: it writes none.
  CHECK_FALSE(late.lab("ana")->app.snapshot("9999999999999-0", nullptr));
  a.start_log();
  reset_lab(a.lab("ana")->app, a.lab("ana")->storm);
  REQUIRE(converged(a, late, [&] { return !late.lab("ana")->app.class_order().history_incomplete(); }));
  CHECK(late.requests("ana") == 0);
}

TEST_CASE("class log: a sweep's points reach the other replica, which keeps the lab's sweeps as the one running them does") {
  RedisServer redis;
  Replica a(redis, 1);
  Replica b(redis, 2);
  a.quote("ana");  // the lab exists on both
  REQUIRE(converged(a, b, [&] { return b.requests("ana") == 1; }));
  const nlohmann::ordered_json fifo = {{"mode", "legacy"}, {"scenario", "overloaded_fifo"}, {"params", nlohmann::ordered_json::object()},
                                       {"started_at_ms", 1000}, {"points", {{{"rate_per_s", 10}}}}};
  nlohmann::ordered_json codel = fifo;
  codel["scenario"] = "overloaded_codel";
  codel["started_at_ms"] = 2000;
  a.lab("ana")->app.events().publish("storm_sweep", fifo);
  a.lab("ana")->app.events().publish("storm_sweep", codel);
  REQUIRE(converged(a, b, [&] {
    const auto told = b.lab("ana")->app.class_order().remote_storm();
    return told.is_object() && told["sweeps"].size() == 2;
  }));
  const auto told = b.lab("ana")->app.class_order().remote_storm();
  CHECK(told["sweep"] == codel);
  CHECK(told["sweeps"] == nlohmann::ordered_json::array({fifo, codel}));
  reset_lab(a.lab("ana")->app, a.lab("ana")->storm);  // a reset forgets them on every replica
  REQUIRE(converged(a, b, [&] { return b.lab("ana")->app.class_order().remote_storm().is_null(); }));
}

}  // namespace test_class_log_replicas

namespace test_class_log_replicas {
namespace {
// A design as POST /experiments/scorecard keeps it (the scorecard's figures made up).
LabDesign design_scoring(double score) {
  LabDesign d;
  d.pipeline = nlohmann::ordered_json::array({{{"strategy", "timeout"}, {"timeout_ms", 220}}});
  d.card.policy = "ana";
  d.card.score = score;
  d.card.rows.push_back(ScoreRow{.run = "provider_down", .goodput_ratio = 1, .live_ratio = score / 100});
  d.submitted_at = WallTime(std::chrono::seconds(1'800'000'000));
  return d;
}

std::optional<double> design_score(Replica& r, const std::string& lab) {
  const auto d = r.lab(lab)->app.design();
  return d ? std::optional<double>(d->card.score) : std::nullopt;
}
}  // namespace

TEST_CASE("class log: a design posted on one replica is ranked on the other, the newest wins on both and a reset leaves it") {
  RedisServer redis;
  Replica a(redis, 1), b(redis, 2);
  a.lab("ana")->app.post_design(design_scoring(61.5));
  REQUIRE(converged(a, b, [&] { return design_score(b, "ana") == 61.5; }));
  const auto rows = b.labs.class_designs();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].lab == "ana");
  CHECK(rows[0].place == 1);
  CHECK(rows[0].design.id == a.lab("ana")->app.design()->id);
  // The same lab's design posted on both replicas at once: one of them, the same on both.
  for (int round = 0; round < 10; ++round) {
    CAPTURE(round);
    std::thread ta([&] { a.lab("ana")->app.post_design(design_scoring(40 + round)); });
    std::thread tb([&] { b.lab("ana")->app.post_design(design_scoring(70 + round)); });
    ta.join();
    tb.join();
    REQUIRE(converged(a, b, [&] { return design_score(a, "ana") == design_score(b, "ana"); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    const auto score = design_score(a, "ana");
    CHECK((score == 40 + round || score == 70 + round));
    CHECK(design_score(b, "ana") == score);
  }
  const auto kept = design_score(a, "ana");
  b.lab("ana")->app.reset();
  REQUIRE(converged(a, b, [&] { return a.requests("ana") == 0; }));
  CHECK(design_score(a, "ana") == kept);
  CHECK(design_score(b, "ana") == kept);
}

TEST_CASE("class log: a replica that starts after a design's entry left the stream has it from the lab's snapshot") {
  RedisServer redis;
  Replica a(redis, 1);
  a.quote("ana");
  a.lab("ana")->app.post_design(design_scoring(55));
  REQUIRE(eventually([&] { return snapshots_written(a, {"ana"}); }, std::chrono::seconds(5)));
  redis_says(a, {"XTRIM", ClassLog::kStreamKey, "MAXLEN", "0"});
  Replica late(redis, 2);
  REQUIRE(eventually([&] { return late.log.caught_up(); }, std::chrono::seconds(5)));
  CHECK(design_score(late, "ana") == 55);
  CHECK(late.labs.class_designs().size() == 1);
  // A newer design after the snapshot reaches it as any entry does.
  a.lab("ana")->app.post_design(design_scoring(65));
  REQUIRE(converged(a, late, [&] { return design_score(late, "ana") == 65; }));
}

}  // namespace test_class_log_replicas
