/**
 * The model the embedded provider serves when EMBEDDED_MODEL is unset. PLACEHOLDER of issue 19's
 * provider branch: the model choice (its ADR, the `hf:` URI and checksum) belongs to the model
 * download work, whose version of this file replaces this one.
 */
export const DEFAULT_EMBEDDED_MODEL = 'hf:bartowski/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M'
