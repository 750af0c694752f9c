/** A ComfyUI API-format workflow: node id → `{class_type, inputs}`, links written `[nodeId, outputIndex]`. */
export type ComfyWorkflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title: string } }>;

/** What one generation writes into a workflow. */
export interface WorkflowInputs {
  prompt: string;
  negativePrompt: string;
  width: number;
  height: number;
  seed: number;
  count: number;
  /** The uploaded init image as LoadImage names it (`subfolder/name` or `name`); absent for text-to-image. */
  image?: string;
  /** Denoising strength, 0-1 (1 for text-to-image). */
  strength: number;
}

export const DEFAULT_CHECKPOINT = 'sd_xl_base_1.0.safetensors';
const SAMPLING = { steps: 25, cfg: 7, sampler_name: 'dpmpp_2m', scheduler: 'karras' } as const;
/** Image-to-image without a strength keeps a fair share of the reference, as A1111's default does. */
export const DEFAULT_STRENGTH = 0.75;

/**
 * The built-in workflow, the node ids of ComfyUI's own default graph: checkpoint (4), prompts (6,
 * 7), latent (5), KSampler (3), VAEDecode (8), SaveImage (9). Image-to-image replaces the empty
 * latent with the uploaded image scaled to the asked size (10, 11), encoded (12) and repeated
 * `count` times (5), since VAEEncode of one image is a batch of one.
 */
export function defaultWorkflow(inputs: WorkflowInputs): ComfyWorkflow {
  const graph: ComfyWorkflow = {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: DEFAULT_CHECKPOINT } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: inputs.prompt, clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: inputs.negativePrompt, clip: ['4', 1] } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: inputs.width, height: inputs.height, batch_size: inputs.count } },
    '3': {
      class_type: 'KSampler',
      inputs: { seed: inputs.seed, ...SAMPLING, denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'persona', images: ['8', 0] } },
  };
  if (inputs.image === undefined) return graph;
  graph['10'] = { class_type: 'LoadImage', inputs: { image: inputs.image } };
  graph['11'] = { class_type: 'ImageScale', inputs: { image: ['10', 0], upscale_method: 'lanczos', width: inputs.width, height: inputs.height, crop: 'center' } };
  graph['12'] = { class_type: 'VAEEncode', inputs: { pixels: ['11', 0], vae: ['4', 2] } };
  graph['5'] = { class_type: 'RepeatLatentBatch', inputs: { samples: ['12', 0], amount: inputs.count } };
  graph['3'].inputs.denoise = inputs.strength;
  return graph;
}

const PLACEHOLDER = /\{\{(prompt|negative_prompt|width|height|seed|count|image|strength)\}\}/g;

/**
 * Fills an admin's override workflow. The convention: anywhere in the JSON, a string that is
 * exactly `"{{width}}"`, `"{{height}}"`, `"{{seed}}"`, `"{{count}}"` or `"{{strength}}"` becomes
 * that number; `"{{image}}"` becomes the uploaded image's name; `{{prompt}}` and
 * `{{negative_prompt}}` are replaced inside any string (so `"photo, {{prompt}}"` works), and so are
 * the others when part of a longer string. Unknown `{{...}}` are left as written. The override
 * itself is never modified.
 */
export function fillWorkflow(template: Record<string, unknown>, inputs: WorkflowInputs): ComfyWorkflow {
  const values: Record<string, string | number> = {
    prompt: inputs.prompt,
    negative_prompt: inputs.negativePrompt,
    width: inputs.width,
    height: inputs.height,
    seed: inputs.seed,
    count: inputs.count,
    image: inputs.image ?? '',
    strength: inputs.strength,
  };
  return fill(template, values) as ComfyWorkflow;
}

function fill(value: unknown, values: Record<string, string | number>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole && whole[1] in values) return values[whole[1]];
    return value.replace(PLACEHOLDER, (_, name: string) => String(values[name]));
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]));
  return value;
}

/** Whether an override reads the uploaded image, so it can draw image-to-image. */
export function usesImage(template: Record<string, unknown>): boolean {
  return JSON.stringify(template).includes('{{image}}');
}

/** The workflow of one generation: the admin's override when there is one, else the built-in one. */
export function buildWorkflow(override: Record<string, unknown> | null, inputs: WorkflowInputs): ComfyWorkflow {
  return override ? fillWorkflow(override, inputs) : defaultWorkflow(inputs);
}
