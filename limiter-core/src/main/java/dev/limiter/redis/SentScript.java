package dev.limiter.redis;

import java.util.List;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;

/**
 * A script command that notes when an event loop wrote it to Redis's socket.
 * <p>
 * Redis's share of a call's timeout starts there: until then the command waited in this
 * JVM (a cold call path, an event loop busy with other connections' replies), and a Redis
 * that answers within its timeout of the write has answered in time, however late this
 * JVM sent the question. A redirected cluster command is written again and noted again.
 */
final class SentScript extends AsyncCommand<byte[], byte[], List<Long>> {

	private volatile long sentNanos;

	private volatile boolean sent;

	private SentScript(Command<byte[], byte[], List<Long>> command) {
		super(command);
	}

	/**
	 * Create an {@code EVALSHA} whose reply is the script's integers.
	 * @param sha1 the script's SHA-1
	 * @param keys the keys
	 * @param args the arguments
	 * @return the command, not yet dispatched
	 */
	static SentScript evalsha(String sha1, byte[][] keys, byte[][] args) {
		return new SentScript(
				script(CommandType.EVALSHA, new CommandArgs<>(ByteArrayCodec.INSTANCE).add(sha1), keys, args));
	}

	/**
	 * Create an {@code EVAL} whose reply is the script's integers.
	 * @param source the script's source
	 * @param keys the keys
	 * @param args the arguments
	 * @return the command, not yet dispatched
	 */
	static SentScript eval(byte[] source, byte[][] keys, byte[][] args) {
		return new SentScript(
				script(CommandType.EVAL, new CommandArgs<>(ByteArrayCodec.INSTANCE).add(source), keys, args));
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static Command<byte[], byte[], List<Long>> script(CommandType type, CommandArgs<byte[], byte[]> scriptArgs,
			byte[][] keys, byte[][] args) {
		// The same command and output as Lettuce's own evalsha and eval with
		// ScriptOutputType.MULTI; the keys are marked as keys, so that a cluster
		// connection routes the command by them.
		scriptArgs.add(keys.length).addKeys(keys).addValues(args);
		CommandOutput output = new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
		return new Command<>(type, (CommandOutput<byte[], byte[], List<Long>>) output, scriptArgs);
	}

	@Override
	public void encode(ByteBuf buf) {
		super.encode(buf);
		this.sentNanos = System.nanoTime();
		this.sent = true;
	}

	/**
	 * Return whether an event loop has written the command to its socket.
	 * @return whether it was written
	 */
	boolean isSent() {
		return this.sent;
	}

	/**
	 * Return when the command was last written, on {@link System#nanoTime()}'s scale;
	 * meaningful once {@link #isSent()}.
	 * @return the time of the write
	 */
	long sentNanos() {
		return this.sentNanos;
	}

}
