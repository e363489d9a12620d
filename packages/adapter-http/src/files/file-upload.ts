import type { Readable } from "node:stream";
import {
  type Cellar,
  CellarError,
  ErrorCode,
  type FileMetadata,
  invalidField,
  isCellarError,
  normaliseFileName,
  parseVisibility,
  type ReceivedUpload,
} from "@cellar/core";
import type { Multipart } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";

/** The form fields an upload may carry besides its `file` part. */
const TEXT_FIELDS = ["name", "visibility"] as const;
type TextField = (typeof TEXT_FIELDS)[number];

function isTextField(name: string): name is TextField {
  return (TEXT_FIELDS as readonly string[]).includes(name);
}

/**
 * The client's bytes as core reads them: an upload's file part, or a new content's body.
 * A stream that breaks (malformed multipart, the client gone) is the client's fault, not
 * a 500; one cut short by the size limit is too large. Nothing is held: each chunk goes
 * straight on to core. A stream core stops reading (it refused the bytes) is left as it
 * is, not destroyed: destroying a request's body resets its connection, and the error
 * handler reads the rest first so that the client gets the answer (settleRefusedBody).
 */
export async function* clientBytes(stream: Readable & { truncated?: boolean }): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } catch (cause) {
    throw new CellarError(ErrorCode.validation_error, "The upload ended before it was complete.", { cause });
  }
  if (stream.truncated === true) {
    throw new CellarError(ErrorCode.payload_too_large, "The file is larger than Cellar accepts.");
  }
}

/**
 * The form's parts as @fastify/multipart parses them. Its own errors (limits, which carry
 * a status) pass on; anything else the parser throws (no boundary, a part without
 * headers, the body ending mid-part) is a malformed request, not a server fault.
 */
async function* formParts(request: FastifyRequest): AsyncGenerator<Multipart> {
  try {
    yield* request.parts();
  } catch (cause) {
    const hasStatus = typeof cause === "object" && cause !== null && "statusCode" in cause;
    if (isCellarError(cause) || hasStatus) throw cause;
    throw new CellarError(ErrorCode.validation_error, "The upload form is not well-formed multipart data.", { cause });
  }
}

/**
 * Reads an upload form part by part, in whatever order the parts come: the file is
 * streamed into storage as it arrives, `name` and `visibility` are collected, and the
 * file is recorded once the form ends. Whatever fails, nothing is left behind.
 */
export async function receiveUploadForm(
  request: FastifyRequest,
  cellar: Cellar,
  ownerId: string,
): Promise<FileMetadata> {
  let upload: ReceivedUpload | undefined;
  const fields: Partial<Record<TextField, unknown>> = {};
  try {
    for await (const part of formParts(request)) {
      if (part.type === "file") {
        if (part.fieldname !== "file") {
          part.file.resume();
          throw isTextField(part.fieldname)
            ? invalidField(part.fieldname, "must be a text field, not a file")
            : invalidField(part.fieldname, "is not a known field");
        }
        if (upload !== undefined) {
          part.file.resume();
          throw invalidField("file", "must be sent only once");
        }
        upload = await cellar.files.receive({
          ownerId,
          // A file part without a file name has no extension, which core refuses.
          clientFileName: part.filename ?? "",
          content: clientBytes(part.file),
        });
      } else if (part.fieldname === "file") {
        throw invalidField("file", "must be a file, not a text field");
      } else if (isTextField(part.fieldname)) {
        if (part.fieldname in fields) throw invalidField(part.fieldname, "must be sent only once");
        if (part.valueTruncated) throw invalidField(part.fieldname, "is too long");
        // Checked as soon as it arrives, so a bad field sent before the file stops the
        // upload before its bytes are stored.
        checkTextField(part.fieldname, part.value);
        fields[part.fieldname] = part.value;
      } else {
        throw invalidField(part.fieldname, "is not a known field");
      }
    }
    if (upload === undefined) throw invalidField("file", "is required");
  } catch (error) {
    if (upload !== undefined) await cellar.files.discard(upload);
    throw error;
  }
  // commit removes the stored bytes itself when it fails.
  return cellar.files.commit({ upload, ...fields });
}

function checkTextField(field: TextField, value: unknown): void {
  if (field === "name") normaliseFileName(value);
  else parseVisibility(value);
}
