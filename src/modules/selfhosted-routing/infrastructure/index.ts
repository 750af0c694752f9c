export { A1111Backend } from './a1111-backend.js';
export { ComfyUiBackend } from './comfyui-backend.js';
export { GPU_BACKEND_DEFAULTS, GPU_BACKEND_OPTIONS, type GpuBackendOptions } from './gpu-http.js';
export { DEFAULT_CHECKPOINT, buildWorkflow, defaultWorkflow, fillWorkflow, type ComfyWorkflow, type WorkflowInputs } from './comfyui-workflow.js';
