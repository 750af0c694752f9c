import { describe, expect, it } from '@jest/globals';
import { publishMessageOf, readPublishMessage } from './publish-message.js';

describe('publish queue message', () => {
  it('names the post and its workspace, and reads back as written', () => {
    const body = publishMessageOf({ workspaceId: 'ws_01HZX3K8V7Q2N4M6P8R0T2W4Y6', id: 'sch_01HZX3K8V7Q2N4M6P8R0T2W4Y7' });
    expect(body).toBe('ws_01HZX3K8V7Q2N4M6P8R0T2W4Y6/sch_01HZX3K8V7Q2N4M6P8R0T2W4Y7');
    expect(readPublishMessage(body)).toEqual({ workspaceId: 'ws_01HZX3K8V7Q2N4M6P8R0T2W4Y6', postId: 'sch_01HZX3K8V7Q2N4M6P8R0T2W4Y7' });
  });

  it('reads a bare post id (queued by the previous release) as a message without workspace', () => {
    expect(readPublishMessage('sch_01HZX3K8V7Q2N4M6P8R0T2W4Y7')).toEqual({ workspaceId: null, postId: 'sch_01HZX3K8V7Q2N4M6P8R0T2W4Y7' });
  });
});
