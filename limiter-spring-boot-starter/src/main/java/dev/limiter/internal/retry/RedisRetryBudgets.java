package dev.limiter.internal.retry;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongSupplier;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.DigestUtils;

/**
 * The budgets in Redis: one hash per budget, {@code <key prefix>retry:{<name>}}, whose
 * fields count a second's first attempts ({@code d:<second>}), the retries they paid for
 * ({@code r:<second>}) and the retries the second's allowance paid for
 * ({@code m:<second>}), changed by one script call that does what {@link RetryWindow}
 * does.
 */
public final class RedisRetryBudgets implements RetryBudgetStore {

	static final String SCRIPT = """
			local now = tonumber(ARGV[1])
			if now < 0 then
			  local time = redis.call('TIME')
			  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
			end
			local second = math.floor(now / 1000)
			local deposits = tonumber(ARGV[2])
			local retry = tonumber(ARGV[3])
			local ratio = tonumber(ARGV[4])
			local minimum = tonumber(ARGV[5])
			local window = tonumber(ARGV[6])
			local oldest = second - window + 1
			local fields = redis.call('HGETALL', KEYS[1])
			local deposited, byRatio, byMinimum = 0, 0, 0
			local stale = {}
			for i = 1, #fields, 2 do
			  local at = tonumber(string.sub(fields[i], 3))
			  local kind = string.sub(fields[i], 1, 1)
			  if at < oldest or at > second then
			    if at < oldest then stale[#stale + 1] = fields[i] end
			  elseif kind == 'd' then deposited = deposited + tonumber(fields[i + 1])
			  elseif kind == 'r' then byRatio = byRatio + tonumber(fields[i + 1])
			  elseif at == second then byMinimum = byMinimum + tonumber(fields[i + 1])
			  end
			end
			if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
			if deposits > 0 then
			  redis.call('HINCRBY', KEYS[1], 'd:' .. second, deposits)
			  deposited = deposited + deposits
			end
			local paid = 0
			if retry > 0 then
			  if byRatio + 1 <= ratio * deposited then
			    redis.call('HINCRBY', KEYS[1], 'r:' .. second, 1)
			    byRatio = byRatio + 1
			    paid = 1
			  elseif byMinimum < minimum then
			    redis.call('HINCRBY', KEYS[1], 'm:' .. second, 1)
			    byMinimum = byMinimum + 1
			    paid = 2
			  end
			end
			redis.call('PEXPIRE', KEYS[1], (window + 1) * 1000)
			return { paid, deposited, byRatio, byMinimum }
			""";

	private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);

	private static final byte[] SHA1 = DigestUtils.sha1DigestAsHex(SCRIPT).getBytes(StandardCharsets.UTF_8);

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final LongSupplier clock;

	/**
	 * Create the store.
	 * @param connectionFactory the limiter's connection, whose timeout bounds a call
	 * @param keyPrefix the limiter's key prefix
	 * @param clock the application's clock, or {@code null} to place calls by Redis's own
	 * ({@code limiter.clock=redis})
	 */
	public RedisRetryBudgets(RedisConnectionFactory connectionFactory, String keyPrefix, LongSupplier clock) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyPrefix;
		this.clock = clock;
	}

	@Override
	public RetryWindow.Outcome apply(BudgetSettings budget, long firstAttempts, boolean retry) {
		byte[][] keyAndArgs = { key(budget.name()), bytes((this.clock != null) ? this.clock.getAsLong() : -1),
				bytes(firstAttempts), bytes(retry ? 1 : 0), bytes(budget.ratio()), bytes(budget.minPerSecond()),
				bytes(RetryWindow.WINDOW_SECONDS) };
		List<Object> reply;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				reply = connection.scriptingCommands().evalSha(SHA1, ReturnType.MULTI, 1, keyAndArgs);
			}
			catch (RuntimeException ex) {
				if (!noScript(ex)) {
					throw ex;
				}
				reply = connection.scriptingCommands().eval(SCRIPT_BYTES, ReturnType.MULTI, 1, keyAndArgs);
			}
		}
		return new RetryWindow.Outcome(((Number) reply.get(0)).intValue(), ((Number) reply.get(1)).longValue(),
				((Number) reply.get(2)).longValue(), ((Number) reply.get(3)).longValue());
	}

	private byte[] key(String budget) {
		return (this.keyPrefix + "retry:{" + budget + "}").getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] bytes(Object value) {
		return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
	}

	private static boolean noScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

}
