import {
  useForm,
  type FormMetadata,
  type FieldName,
  type SubmissionResult,
} from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import type { z } from "zod";

type SchemaFormOptions<Schema extends z.ZodTypeAny> = {
  id: string;
  lastResult?: SubmissionResult<string[]> | null;
  defaultValue?: Partial<z.input<Schema>> | Record<string, unknown>;
  shouldValidate?: "onSubmit" | "onBlur" | "onInput";
  shouldRevalidate?: "onSubmit" | "onBlur" | "onInput";
  /** Constraints to send when the schema's own cannot be derived (a schema built with z.preprocess). */
  constraint?: Record<string, Record<string, unknown>>;
};

/**
 * conform's `useForm` set up the one way every console form uses it: the same zod schema drives
 * the browser's native constraints (sent with the server-rendered HTML, so `required`, `minLength`
 * and `pattern` refuse bad input before JavaScript loads) and, once hydrated, the client-side check.
 */
export function useSchemaForm<Schema extends z.ZodTypeAny>(
  schema: Schema,
  options: SchemaFormOptions<Schema>
) {
  return useForm<z.input<Schema>, z.output<Schema>>({
    id: options.id,
    lastResult: options.lastResult,
    defaultValue: options.defaultValue as never,
    shouldValidate: options.shouldValidate,
    shouldRevalidate: options.shouldRevalidate ?? "onBlur",
    constraint: (options.constraint ?? getZodConstraint(schema)) as never,
    // conform's default turns the browser's checks off at render; the no-JS path needs them.
    // Once conform validates with the schema itself it sets noValidate on the form.
    defaultNoValidate: false,
    onValidate({ formData }) {
      return parseWithZod(formData, { schema });
    },
  });
}

export type SchemaForm<Schema extends z.ZodTypeAny> = FormMetadata<
  z.input<Schema>,
  string[]
>;
export type SchemaFieldName<Schema extends z.ZodTypeAny> = FieldName<
  z.input<Schema>
>;
