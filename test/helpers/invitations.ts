import { api, type TestUser } from './api.js';
import type { TestServer } from './server.js';

type Auth = { Authorization: string };

/**
 * Makes `invitee` a member of `workspaceId` the only way there is: the owner invites their email
 * and the invitee accepts by the invitation's id. Answers the invitation as the owner saw it.
 */
export async function inviteAndAccept(server: TestServer, owner: Auth, workspaceId: string, invitee: TestUser, role: string): Promise<{ id: string; token: string }> {
  const invited = await api(server).post(`/organizations/${workspaceId}/members`).set(owner).send({ email: invitee.user.email, role });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const invitation = invited.body.invitation as { id: string; token: string };
  const accepted = await api(server).post(`/invitations/${invitation.id}/accept`).set(invitee.auth);
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return invitation;
}

/** A token for `workspaceId` from a switch; `user` must be a member there. */
export async function switchTo(server: TestServer, user: Auth, workspaceId: string): Promise<Auth> {
  const res = await api(server).post('/auth/switch-workspace').set(user).send({ workspace_id: workspaceId });
  if (res.status !== 200) throw new Error(`switch failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { Authorization: `Bearer ${res.body.access_token}` };
}
