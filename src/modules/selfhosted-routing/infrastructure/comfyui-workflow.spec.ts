import { describe, expect, it } from '@jest/globals';
import { buildWorkflow, defaultWorkflow, fillWorkflow, type WorkflowInputs } from './comfyui-workflow.js';

const inputs: WorkflowInputs = { prompt: 'a cat named $& "quoted"', negativePrompt: '', width: 832, height: 1216, seed: 99, count: 2, strength: 1 };

describe('comfyui workflow', () => {
  it('links every node of the built-in graph to nodes that exist', () => {
    for (const graph of [defaultWorkflow(inputs), defaultWorkflow({ ...inputs, image: 'in/ref.png', strength: 0.3 })]) {
      for (const node of Object.values(graph)) {
        for (const value of Object.values(node.inputs)) {
          if (Array.isArray(value)) expect(Object.keys(graph)).toContain(value[0]);
        }
      }
    }
  });

  it('fills placeholders inside longer strings as text, and keeps unknown ones and prompt text verbatim', () => {
    const filled = fillWorkflow({ a: { class_type: 'X', inputs: { text: '{{prompt}} at {{width}}px', other: '{{lora}}', size: ['{{width}}', '{{height}}'] } } }, inputs);
    expect(filled.a.inputs).toEqual({ text: 'a cat named $& "quoted" at 832px', other: '{{lora}}', size: [832, 1216] });
  });

  it('uses the override when there is one', () => {
    const override = { '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x_{{seed}}' } } };
    expect(buildWorkflow(override, inputs)).toEqual({ '1': { class_type: 'SaveImage', inputs: { filename_prefix: 'x_99' } } });
    expect(buildWorkflow(null, inputs)['5'].inputs).toEqual({ width: 832, height: 1216, batch_size: 2 });
  });
});
