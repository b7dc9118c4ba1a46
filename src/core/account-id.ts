import { z } from "zod/v4";

/** Account ids name Durable Objects and scope every row, so their shape is fixed in one place. */
export const AccountIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,31}$/, "account ids are 2-32 lowercase letters, digits or dashes, starting with a letter");
