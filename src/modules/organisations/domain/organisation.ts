import type { Plan, WorkspaceRole } from '../../../core/index.js';

/** A workspace seen as an organisation, with the viewer's role in it. */
export interface Organisation {
  id: string;
  name: string;
  slug: string | null;
  plan: Plan;
  /** Members must have two-factor sign-in on to use the workspace. */
  requireMfa: boolean;
  createdAt: Date;
  role: WorkspaceRole;
}

export interface Member {
  userId: string;
  email: string;
  displayName: string;
  role: WorkspaceRole;
  joinedAt: Date;
}

/** A user as an invitation or an addition names them. */
export interface Person {
  id: string;
  email: string;
}
