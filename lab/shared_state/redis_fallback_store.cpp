#include "lab/shared_state/redis_fallback_store.hpp"

#include <nlohmann/json.hpp>

#include "lab/shared_state/redis_breaker_store.hpp"

namespace quote_lab {
namespace {

// KEYS: the hash. ARGV: field, value, ttl s.
const std::string kRemember = R"lua(
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
)lua";

std::string field_of(int customer_id, int items) { return std::to_string(customer_id) + ":" + std::to_string(items); }

long long ms_of(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
WallTime time_of(long long ms) { return WallTime(std::chrono::duration_cast<WallTime::duration>(Millis(ms))); }

}  // namespace

RedisFallbackStore::RedisFallbackStore(RedisClient& client, const std::string& lab_name)
    : client_(client), key_(RedisBreakerStore::key_prefix(lab_name) + "fallback") {}

void RedisFallbackStore::remember(const CachedQuote& entry) {
  const nlohmann::json j{{"quote_id", entry.quote.quote_id},   {"amount", entry.quote.amount},
                         {"currency", entry.quote.currency},   {"priced_at_ms", ms_of(entry.quote.priced_at)},
                         {"cached_at_ms", ms_of(entry.cached_at)}};
  client_.eval(kRemember, {key_},
               {field_of(entry.customer_id, entry.items), j.dump(), std::to_string(RedisBreakerStore::kIdleTtlS)});
}

std::optional<CachedQuote> RedisFallbackStore::lookup(int customer_id, int items) {
  const auto v = client_.command({"HGET", key_, field_of(customer_id, items)});
  if (!v || v->type != RedisValue::Type::string) return std::nullopt;
  const auto j = nlohmann::json::parse(v->text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  try {
    CachedQuote q;
    q.customer_id = customer_id;
    q.items = items;
    q.quote.quote_id = j.at("quote_id").get<std::string>();
    q.quote.amount = j.at("amount").get<double>();
    q.quote.currency = j.at("currency").get<std::string>();
    q.quote.priced_at = time_of(j.at("priced_at_ms").get<long long>());
    q.cached_at = time_of(j.at("cached_at_ms").get<long long>());
    return q;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // written by another version: not a quote this lab can serve
  }
}

void RedisFallbackStore::reset() { client_.command({"DEL", key_}); }

}  // namespace quote_lab
