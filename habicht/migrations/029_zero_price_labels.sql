-- A pasted search's label no longer names a lower price bound of 0, which bounds nothing
-- (issue 36: "sofa (max € 300)", not "sofa (€ 0 - 300)"); watches made before that keep the
-- old label in /list, the alerts and the owners' texts. Relabel them as a new watch of the
-- same search would be labelled: only a label that ends in the range its search's URL holds
-- (`PRICE_FROM=0`) is touched, so the words of a keyword search that happen to read so stay.
UPDATE watches
SET label = replace(label, ' (€ 0 - ', ' (max € ')
WHERE label LIKE '% (€ 0 - %)'
  AND search_id IN (SELECT id FROM searches WHERE url LIKE '%PRICE_FROM=0&%'
                                               OR url LIKE '%PRICE_FROM=0');
UPDATE watches
SET label = substr(label, 1, length(label) - length(' (min € 0)'))
WHERE label LIKE '% (min € 0)'
  AND search_id IN (SELECT id FROM searches WHERE url LIKE '%PRICE_FROM=0&%'
                                               OR url LIKE '%PRICE_FROM=0');
