/** Data fixtures several packages' tests load. */

/**
 * The reference example of SPEC §3 as TriG: two people, three quads, labelled through the labels
 * graph (`:person4321 :phone` for everyone, `:person9876 :empId` for `employee`; `:person4321
 * :empId` has no entry, so it takes the dataset's default label).
 */
export const SPEC_EXAMPLE_TRIG = `PREFIX authz: <http://ndtp.co.uk/security#>
PREFIX : <http://example/>
:person4321 :phone "0400 111 333" ; :empId 4321 .
:person9876 :empId 9876 .
GRAPH authz:labels {
  [ authz:pattern ':person4321 :phone "0400 111 333"' ; authz:label "*" ] .
  [ authz:pattern ':person9876 :empId 9876' ; authz:label "employee" ] .
}
`;

/** The namespace of `LABELS_ADMIN_TRIG`. */
export const LABELS_ADMIN_EX = 'http://example.org/ns#';

/**
 * The data of the label-administration tests (graph server `/ds/labels/*`, `ianode labels`): six
 * quads, two labelled `manager` (who knows whom), one `engineer` (Carol's name in ex:g), three
 * taking the dataset's default label.
 */
export const LABELS_ADMIN_TRIG = `PREFIX authz: <http://telicent.io/security#>
PREFIX ex:    <${LABELS_ADMIN_EX}>
ex:Alice ex:knows ex:Bob .
ex:Bob ex:knows ex:Alice .
ex:Alice ex:name "Alice" .
ex:Bob ex:name "Bob" .
GRAPH ex:g { ex:Carol ex:name "Carol" . ex:Carol ex:knows ex:Alice . }
GRAPH authz:labels {
  [ authz:pattern '<${LABELS_ADMIN_EX}Alice> <${LABELS_ADMIN_EX}knows> <${LABELS_ADMIN_EX}Bob>' ; authz:label "manager" ] .
  [ authz:pattern '<${LABELS_ADMIN_EX}Bob> <${LABELS_ADMIN_EX}knows> <${LABELS_ADMIN_EX}Alice>' ; authz:label "manager" ] .
  [ authz:pattern '<${LABELS_ADMIN_EX}g> <${LABELS_ADMIN_EX}Carol> <${LABELS_ADMIN_EX}name> "Carol"' ; authz:label "engineer" ] .
}
`;

/** The users of `LABELS_ADMIN_TRIG`'s tests: readers, an administrator without `engineer`, and `loader` holding everything. */
export const LABELS_ADMIN_DIRECTORY: Record<string, string[]> = {
  'u1@test': ['ianode_read', 'manager'],
  'u2@test': ['ianode_read', 'engineer'],
  'admin@test': ['ianode_read', 'ianode_admin', 'manager'],
  'loader@test': ['ianode_read', 'ianode_admin', 'manager', 'engineer'],
};
