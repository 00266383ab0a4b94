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
