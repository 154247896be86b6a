"""Document skeletons the renderers share, knowing no subject: report/ and check/ fill them in.

``sarif`` (a SARIF 2.1.0 log: runs, rules by index, a finding as a result) and
``junit`` (JUnit XML: counts, text XML 1.0 can hold, the document).
"""
