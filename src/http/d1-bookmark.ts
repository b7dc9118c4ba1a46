/**
 * The D1 bookmark a caller carries between requests, so that with read
 * replication its reads are served near it and never older than what it saw
 * or wrote before (store/read-session.ts). It is the name D1's own examples
 * use. A caller that sends none starts at the primary, which is as new as
 * anything; one that sends back what the last response handed it may be
 * served by a replica. The value is a bookmark or `first-primary`.
 */
import { EVENT_STREAM_MEDIA_TYPE, isMediaType } from "../core/media-type";

export const BOOKMARK_HEADER = "x-d1-bookmark";

const AT_PRIMARY = "first-primary";

/** D1 writes a bookmark as dash-separated hex fields; nothing else reaches withSession. */
const BOOKMARK_SHAPE = /^[0-9a-f]{1,64}(?:-[0-9a-f]{1,64}){1,7}$/i;

/**
 * Where the caller says its reads should start: a bookmark or the primary.
 * A value of any other shape counts as none (the primary), so a client that
 * garbles it gets fresh reads, never an error.
 */
export function bookmarkFromRequest(headers: Headers): D1SessionBookmark | typeof AT_PRIMARY | undefined {
  const value = headers.get(BOOKMARK_HEADER)?.trim();
  if (value === undefined || value === "") return undefined;
  return value === AT_PRIMARY || BOOKMARK_SHAPE.test(value) ? value : undefined;
}

/**
 * The answer with the start of the caller's next reads in its header. An
 * answer that streams goes out before the call behind it has finished, so
 * it cannot know what that call will read or write: it hands on the primary.
 */
export function withNextBookmark(response: Response, next: string | undefined): Response {
  const streams = isMediaType(response.headers.get("content-type"), EVENT_STREAM_MEDIA_TYPE);
  const value = streams ? AT_PRIMARY : next;
  if (value === undefined) return response;
  // A copy, whose headers can change whatever made the answer.
  const answer = new Response(response.body, response);
  answer.headers.set(BOOKMARK_HEADER, value);
  return answer;
}
