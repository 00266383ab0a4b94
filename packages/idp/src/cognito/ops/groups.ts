/**
 * CreateGroup, GetGroup, ListGroups, DeleteGroup, AdminAddUserToGroup, AdminRemoveUserFromGroup,
 * AdminListGroupsForUser, ListUsersInGroup. Membership changes show in tokens issued afterwards.
 */
import type { IdpContext } from '../../context.js';
import { IdpError } from '../../errors.js';
import {
  addMember,
  deleteGroup,
  findGroup,
  groupsOfUser,
  insertGroup,
  listGroups,
  membersOf,
  removeMember,
  requireGroup,
  type Group,
} from '../../model/groups.js';
import { requirePool } from '../../model/pools.js';
import { findUserBySub, requireUser, type User } from '../../model/users.js';
import { operation } from '../operation.js';
import { paginate } from '../pagination.js';
import { GroupName, int, Limit, NextToken, obj, str, Username, UserPoolId } from '../schema.js';
import { groupShape, userShape } from '../shapes.js';

export interface CreateGroupRequest {
  UserPoolId: string;
  GroupName: string;
  Description?: string;
  Precedence?: number;
  RoleArn?: string;
}

export function createGroup(ctx: IdpContext, req: CreateGroupRequest): Group {
  requirePool(ctx.db, req.UserPoolId);
  const now = ctx.now();
  const group: Group = {
    poolId: req.UserPoolId,
    name: req.GroupName,
    description: req.Description ?? null,
    precedence: req.Precedence ?? null,
    roleArn: req.RoleArn ?? null,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.tx(() => {
    if (findGroup(ctx.db, group.poolId, group.name))
      throw new IdpError('GroupExistsException', 'A group with the name already exists.');
    insertGroup(ctx.db, group);
  });
  return group;
}

export function adminAddUserToGroup(ctx: IdpContext, poolId: string, username: string, groupName: string): void {
  const pool = requirePool(ctx.db, poolId);
  ctx.db.tx(() => {
    const user = requireUser(ctx.db, pool, username);
    requireGroup(ctx.db, poolId, groupName);
    addMember(ctx.db, poolId, groupName, user.sub);
  });
}

const PoolGroup = obj({ UserPoolId, GroupName }, ['UserPoolId', 'GroupName']);
const Membership = obj({ UserPoolId, Username, GroupName }, ['UserPoolId', 'Username', 'GroupName']);
const withNext = (next: string | undefined) => (next ? { NextToken: next } : {});

export const groupOperations = [
  operation<CreateGroupRequest>(
    'CreateGroup',
    true,
    obj(
      { UserPoolId, GroupName, Description: str(0, 2048), Precedence: int(0, 2 ** 31 - 1), RoleArn: str(20, 2048, '^arn:[\\w+=/,.@-]+:[\\w+=/,.@-]+:([\\w+=/,.@-]*)?:[0-9]+:[\\w+=/,.@-]+(:[\\w+=/,.@-]+)?(:[\\w+=/,.@-]+)?$') },
      ['UserPoolId', 'GroupName'],
    ),
    (ctx, body) => ({ Group: groupShape(createGroup(ctx, body)) }),
  ),

  operation<{ UserPoolId: string; GroupName: string }>('GetGroup', true, PoolGroup, (ctx, body) => {
    requirePool(ctx.db, body.UserPoolId);
    return { Group: groupShape(requireGroup(ctx.db, body.UserPoolId, body.GroupName)) };
  }),

  operation<{ UserPoolId: string; Limit?: number; NextToken?: string }>(
    'ListGroups',
    true,
    obj({ UserPoolId, Limit, NextToken }, ['UserPoolId']),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      const all = [...listGroups(ctx.db, body.UserPoolId)].sort((a, b) => (a.name < b.name ? -1 : 1));
      const page = paginate(all, (g) => g.name, body.Limit, body.NextToken);
      return { Groups: page.items.map(groupShape), ...withNext(page.next) };
    },
  ),

  operation<{ UserPoolId: string; GroupName: string }>('DeleteGroup', true, PoolGroup, (ctx, body) => {
    requirePool(ctx.db, body.UserPoolId);
    requireGroup(ctx.db, body.UserPoolId, body.GroupName);
    deleteGroup(ctx.db, body.UserPoolId, body.GroupName);
    return {};
  }),

  operation<{ UserPoolId: string; Username: string; GroupName: string }>('AdminAddUserToGroup', true, Membership, (ctx, body) => {
    adminAddUserToGroup(ctx, body.UserPoolId, body.Username, body.GroupName);
    return {};
  }),

  operation<{ UserPoolId: string; Username: string; GroupName: string }>(
    'AdminRemoveUserFromGroup',
    true,
    Membership,
    (ctx, body) => {
      const user = requireUser(ctx.db, requirePool(ctx.db, body.UserPoolId), body.Username);
      requireGroup(ctx.db, body.UserPoolId, body.GroupName);
      removeMember(ctx.db, body.UserPoolId, body.GroupName, user.sub);
      return {};
    },
  ),

  operation<{ UserPoolId: string; Username: string; Limit?: number; NextToken?: string }>(
    'AdminListGroupsForUser',
    true,
    obj({ UserPoolId, Username, Limit, NextToken }, ['UserPoolId', 'Username']),
    (ctx, body) => {
      const user = requireUser(ctx.db, requirePool(ctx.db, body.UserPoolId), body.Username);
      const all = [...groupsOfUser(ctx.db, user.sub)].sort((a, b) => (a.name < b.name ? -1 : 1));
      const page = paginate(all, (g) => g.name, body.Limit, body.NextToken);
      return { Groups: page.items.map(groupShape), ...withNext(page.next) };
    },
  ),

  operation<{ UserPoolId: string; GroupName: string; Limit?: number; NextToken?: string }>(
    'ListUsersInGroup',
    true,
    obj({ UserPoolId, GroupName, Limit, NextToken }, ['UserPoolId', 'GroupName']),
    (ctx, body) => {
      requirePool(ctx.db, body.UserPoolId);
      requireGroup(ctx.db, body.UserPoolId, body.GroupName);
      const users = membersOf(ctx.db, body.UserPoolId, body.GroupName)
        .map((sub) => findUserBySub(ctx.db, sub))
        .filter((u): u is User => u !== undefined)
        .sort((a, b) => (a.sub < b.sub ? -1 : 1));
      const page = paginate(users, (u) => u.sub, body.Limit, body.NextToken);
      return { Users: page.items.map((u) => userShape(u)), ...withNext(page.next) };
    },
  ),
];
