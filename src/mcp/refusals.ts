// Refusals of resources/read and prompts/get as JSON-RPC errors. Unlike tools/call, whose
// refusals are isError results an agent reads, these methods have no error result: a refusal is
// an InvalidParams error (a 4xx: the client's to fix) or an InternalError (a 5xx: retry later),
// its message the problem's detail and its data the problem details a REST client would get.
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { problemBody } from "../contract/index.js";
import { AppError } from "../platform/errors.js";

/** Runs `work`; anything but a refusal or a protocol error is reported and never shown. */
export async function refusalsAsErrors<T>(
  onInternalError: (error: unknown) => void,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    if (error instanceof AppError && error.code !== "internal") {
      const code = error.status < 500 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
      throw new ProtocolError(code, error.detail, problemBody(error));
    }
    onInternalError(error);
    throw new ProtocolError(ProtocolErrorCode.InternalError, "internal error");
  }
}
